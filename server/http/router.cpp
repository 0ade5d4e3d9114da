#include "http/router.hpp"

#include <boost/beast/http/verb.hpp>
#include <stdexcept>

#include "http/percent.hpp"

namespace delayq::server::http {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
    std::vector<std::string_view> out;
    if (path.empty() || path.front() != '/') return out;
    path.remove_prefix(1);
    while (true) {
        const std::size_t slash = path.find('/');
        out.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

bool is_param(std::string_view segment) {
    return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// RFC 9110 9.3.2: HEAD is GET without the body, so a GET route answers HEAD too.
bool serves(Verb route_method, Verb request_method) {
    return route_method == request_method ||
           (route_method == Verb::get && request_method == Verb::head);
}

void allow_method(std::string& allow, Verb method) {
    const std::string_view name = boost::beast::http::to_string(method);
    if (allow.find(name) != std::string::npos) return;
    if (!allow.empty()) allow += ", ";
    allow.append(name.data(), name.size());
}

}  // namespace

void Router::add(Verb method, std::string_view pattern, Route route) {
    if (pattern.empty() || pattern.front() != '/') {
        throw std::invalid_argument("a route's pattern starts with '/': " + std::string(pattern));
    }
    for (const Entry& r : routes_) {
        if (r.method == method && r.pattern == pattern) {
            throw std::invalid_argument("route taken twice: " + std::string(pattern));
        }
    }
    Entry entry{method, std::string(pattern), {}, 0, std::move(route)};
    for (std::string_view s : split_path(pattern)) {
        entry.segments.emplace_back(s);
        if (!is_param(s)) ++entry.literals;
    }
    routes_.push_back(std::move(entry));
}

Router::Match Router::match(Verb method, std::string_view path) const {
    const std::vector<std::string_view> segments = split_path(path);
    Match result;
    const Entry* best = nullptr;
    for (const Entry& r : routes_) {
        if (r.segments.size() != segments.size()) continue;
        bool fits = true;
        for (std::size_t i = 0; i < segments.size() && fits; ++i) {
            fits = is_param(r.segments[i]) ? !segments[i].empty() : r.segments[i] == segments[i];
        }
        if (!fits) continue;
        if (!serves(r.method, method)) {
            allow_method(result.allow, r.method);
            if (r.method == Verb::get) allow_method(result.allow, Verb::head);
            continue;
        }
        if (best == nullptr || r.literals > best->literals) best = &r;
    }
    if (best == nullptr) {
        result.kind =
            result.allow.empty() ? Match::Kind::kNotFound : Match::Kind::kMethodNotAllowed;
        return result;
    }
    result.allow.clear();
    for (std::size_t i = 0; i < segments.size(); ++i) {
        if (!is_param(best->segments[i])) continue;
        auto value = percent_decode(segments[i]);
        if (!value) {
            result.kind = Match::Kind::kBadPath;
            return result;
        }
        const std::string& p = best->segments[i];
        result.params.emplace(p.substr(1, p.size() - 2), std::move(*value));
    }
    result.kind = Match::Kind::kFound;
    result.route = &best->route;
    result.pattern = best->pattern;
    return result;
}

std::vector<Router::RouteEntry> Router::routes() const {
    std::vector<RouteEntry> out;
    out.reserve(routes_.size());
    for (const Entry& r : routes_) out.push_back({r.method, r.pattern, r.route.scope});
    return out;
}

}  // namespace delayq::server::http
