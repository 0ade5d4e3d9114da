#include "auth/scope.hpp"

namespace delayq::server {

std::string_view scope_name(Scope scope) {
    switch (scope) {
        case Scope::kSend:
            return "send";
        case Scope::kConsume:
            return "consume";
        case Scope::kRead:
            return "read";
        case Scope::kSchedule:
            return "schedule";
        case Scope::kAdmin:
            return "admin";
    }
    return "?";
}

std::string scope_names() {
    std::string out;
    for (Scope s : kAllScopes) {
        if (!out.empty()) out += ", ";
        out += scope_name(s);
    }
    return out;
}

std::optional<Scope> parse_scope(std::string_view name) {
    for (Scope s : kAllScopes) {
        if (scope_name(s) == name) return s;
    }
    return std::nullopt;
}

}  // namespace delayq::server
