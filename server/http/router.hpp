#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.hpp"

namespace delayq::server::http {

// One route: what its request's head must pass, and the handler of the whole request.
struct Route {
    // Runs on the I/O thread with the head alone, before the body is read and before a `100
    // Continue` is sent: a refusal is the answer, and the body is never read. It may fill in the
    // request (the caller's principal). Null: nothing to check.
    std::function<std::optional<HttpResponse>(HttpRequest&)> admit;
    Handler handle;
    // The longest body the route takes, in bytes: a longer one is 413 before it is read.
    std::size_t max_body = 0;
    // What a caller's token needs, empty for nothing; the router only keeps it, so that the
    // route table can be compared with the API's document.
    std::string scope;
};

// Routes by method and path pattern. A pattern is literal segments and `{name}` segments, each
// of which matches one non-empty segment and is handed to the handler percent-decoded (so a
// queue named "a/b" is addressed as a%2Fb). A GET route answers HEAD as well (the session sends
// the head of the GET's answer alone), and the `Allow` of a 405 names HEAD beside GET. Route
// groups register themselves
// (service/*_routes.cpp); the router knows nothing of what they do.
class Router {
  public:
    // Throws std::invalid_argument for a pattern that does not start with '/', or for a method
    // and pattern already taken.
    void add(Verb method, std::string_view pattern, Route route);

    struct Match {
        enum class Kind { kFound, kNotFound, kMethodNotAllowed, kBadPath };
        Kind kind = Kind::kNotFound;
        const Route* route = nullptr;
        std::map<std::string, std::string, std::less<>> params;
        std::string allow;    // kMethodNotAllowed: the methods the path has, for `Allow`
        std::string pattern;  // kFound: the route's pattern, for logs and metrics
    };
    // Matches a percent-encoded path (without its query). When several patterns fit, the one
    // with the most literal segments wins.
    Match match(Verb method, std::string_view path) const;

    struct RouteEntry {
        Verb method;
        std::string pattern;
        std::string scope;  // empty: no token needed
    };
    // Every route, in the order they were added (for tests and docs).
    std::vector<RouteEntry> routes() const;

  private:
    struct Entry {
        Verb method;
        std::string pattern;
        std::vector<std::string> segments;  // "{name}" for a parameter
        std::size_t literals = 0;
        Route route;
    };
    std::vector<Entry> routes_;
};

}  // namespace delayq::server::http
