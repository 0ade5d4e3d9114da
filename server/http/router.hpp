#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/message.hpp"

namespace delayq::server::http {

// Routes by method and path pattern. A pattern is literal segments and `{name}` segments, each
// of which matches one non-empty segment and is handed to the handler percent-decoded (so a
// queue named "a/b" is addressed as a%2Fb). Route groups register themselves
// (service/*_routes.cpp); the router knows nothing of what they do.
class Router {
  public:
    // Throws std::invalid_argument for a pattern that does not start with '/', or for a method
    // and pattern already taken. `scope` names what a caller's token needs, empty for nothing;
    // the router only keeps it, so that the route table can be compared with the API's document.
    void add(Verb method, std::string_view pattern, Handler handler, std::string scope = {});

    struct Match {
        enum class Kind { kFound, kNotFound, kMethodNotAllowed, kBadPath };
        Kind kind = Kind::kNotFound;
        const Handler* handler = nullptr;
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
    struct Route {
        Verb method;
        std::string pattern;
        std::vector<std::string> segments;  // "{name}" for a parameter
        std::size_t literals = 0;
        Handler handler;
        std::string scope;
    };
    std::vector<Route> routes_;
};

}  // namespace delayq::server::http
