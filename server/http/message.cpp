#include "http/message.hpp"

#include <delayq/error.hpp>

#include "http/percent.hpp"

namespace delayq::server::http {
namespace {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

}  // namespace

std::optional<std::string_view> HttpRequest::header(std::string_view lower_name) const {
    for (const auto& [name, value] : headers) {
        if (name == lower_name) return std::string_view(value);
    }
    return std::nullopt;
}

const std::string& HttpRequest::param(std::string_view name) const {
    static const std::string none;
    const auto it = params.find(name);
    return it == params.end() ? none : it->second;
}

std::optional<std::string> HttpRequest::query_param(std::string_view name) const {
    std::string_view rest = query;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        const std::size_t eq = pair.find('=');
        const auto key = percent_decode(pair.substr(0, eq), true);
        if (!key) throw InvalidArgument("bad percent-encoding in the query");
        if (*key != name) continue;
        auto value = percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
        if (!value) throw InvalidArgument("bad percent-encoding in the query");
        return value;
    }
    return std::nullopt;
}

std::string_view HttpRequest::bearer_token() const {
    const auto value = header("authorization");
    if (!value) return {};
    constexpr std::string_view kScheme = "Bearer ";
    if (value->size() <= kScheme.size() || !iequals(value->substr(0, kScheme.size()), kScheme)) {
        return {};
    }
    std::string_view token = value->substr(kScheme.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    return token;
}

HttpResponse json_response(unsigned status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

HttpResponse problem_response(const Problem& problem) {
    HttpResponse r;
    r.status = static_cast<unsigned>(problem.status);
    r.content_type = "application/problem+json";
    r.body = problem.json();
    if (problem.retry_after_s() > 0) {
        r.headers.emplace_back("Retry-After", std::to_string(problem.retry_after_s()));
    }
    return r;
}

}  // namespace delayq::server::http
