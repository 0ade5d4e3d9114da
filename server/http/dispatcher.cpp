#include "http/dispatcher.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/beast/core/string.hpp>
#include <charconv>

#include "http/host_check.hpp"
#include "http/origin.hpp"

namespace delayq::server::http {
namespace {

HttpResponse bad(std::string detail) { return problem_response(bad_request(std::move(detail))); }

HttpResponse forbidden(std::string detail) {
    return problem_response({403, "forbidden", std::move(detail)});
}

std::size_t count_of(const HttpRequest& head, std::string_view lower_name) {
    std::size_t n = 0;
    for (const auto& [name, value] : head.headers) n += name == lower_name ? 1 : 0;
    return n;
}

// The port of a Host value ("name:port", "[v6]:port"), 0 when it has none, nullopt when what
// follows the colon is not a port.
std::optional<std::uint16_t> host_port(std::string_view host) {
    std::size_t colon = std::string_view::npos;
    if (!host.empty() && host.front() == '[') {
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        if (close + 1 == host.size()) return 0;
        if (host[close + 1] != ':') return std::nullopt;
        colon = close + 1;
    } else {
        colon = host.rfind(':');
        if (colon == std::string_view::npos) return 0;
    }
    const std::string_view digits = host.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value == 0 ||
        value > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(value);
}

}  // namespace

Dispatcher::Dispatcher(DispatchRules rules, Router router)
    : rules_(std::move(rules)), router_(std::move(router)) {
    for (std::string& origin : rules_.allowed_origins) origin = normalize_origin(origin);
}

std::optional<HttpResponse> Dispatcher::check_protocol(const HttpRequest& head) const {
    if (head.version != 11) return bad("only HTTP/1.1 is served");
    // RFC 9112 3.2: a request without Host, or with more than one, is a 400.
    if (count_of(head, "host") != 1) return bad("a request needs exactly one Host header");
    const auto port = host_port(*head.header("host"));
    if (!port) return bad("the Host header's port is not a port");
    if (rules_.loopback_hosts_only) {
        if (!is_loopback_host(*head.header("host"))) {
            return forbidden(
                "without an auth file this server answers only requests to a loopback Host "
                "(localhost, 127.0.0.1, [::1])");
        }
        if (*port != 0 && port_ != 0 && *port != port_) {
            return forbidden("the Host header names another port than this server's");
        }
    }
    // RFC 9112 6.3: a body is framed by Content-Length or by chunked coding alone. Any other
    // coding, or both at once, cannot be framed safely: what follows could be read as a second
    // request (request smuggling).
    if (count_of(head, "transfer-encoding") > 0) {
        if (count_of(head, "transfer-encoding") > 1 || count_of(head, "content-length") > 0 ||
            !boost::beast::iequals(
                boost::algorithm::trim_copy(std::string(*head.header("transfer-encoding"))),
                "chunked")) {
            return bad(
                "a request body is framed by Content-Length or by Transfer-Encoding: chunked "
                "alone");
        }
    }
    return std::nullopt;
}

// A browser names the page that makes a request in Origin. A page of another site may send a
// POST without asking first ("no-cors"); refusing those that come from elsewhere, before the
// route runs, keeps a page the user opened from reaching a server on their machine.
std::optional<HttpResponse> Dispatcher::check_origin(const HttpRequest& head) const {
    const std::size_t origins = count_of(head, "origin");
    if (origins == 0) return std::nullopt;  // not a browser: curl, SDKs, servers
    if (origins > 1) return bad("a request has at most one Origin header");
    const std::string_view origin = *head.header("origin");
    const std::optional<std::string> authority = origin_authority(origin);
    if (authority && boost::beast::iequals(*authority, *head.header("host"))) return std::nullopt;
    const std::string normal = normalize_origin(origin);
    for (const std::string& allowed : rules_.allowed_origins) {
        if (normal == allowed) return std::nullopt;
    }
    return forbidden("requests from pages of another origin are refused (" + std::string(origin) +
                     "); the server's operator may allow it with --allowed-origin");
}

Dispatcher::Admission Dispatcher::admit(HttpRequest& head) const {
    if (auto refusal = check_protocol(head)) return {nullptr, std::move(refusal), true};
    if (auto refusal = check_origin(head)) return {nullptr, std::move(refusal)};
    Router::Match match = router_.match(head.method, head.path);
    switch (match.kind) {
        case Router::Match::Kind::kNotFound:
            return {nullptr, problem_response(not_found("no such resource: " + head.path))};
        case Router::Match::Kind::kBadPath:
            return {nullptr, bad("bad percent-encoding in the path")};
        case Router::Match::Kind::kMethodNotAllowed: {
            HttpResponse r = problem_response(
                {405, "method_not_allowed",
                 std::string(boost::beast::http::to_string(head.method)) + " is not allowed on " +
                     head.path + "; allowed: " + match.allow});
            r.headers.emplace_back("Allow", match.allow);
            return {nullptr, std::move(r)};
        }
        case Router::Match::Kind::kFound:
            break;
    }
    head.params = std::move(match.params);
    if (match.route->admit) {
        if (auto refusal = match.route->admit(head)) return {nullptr, std::move(refusal)};
    }
    return {match.route, std::nullopt};
}

}  // namespace delayq::server::http
