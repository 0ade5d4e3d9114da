#pragma once

#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/problem.hpp"
#include "http/client_watch.hpp"

// A request and its answer as the routes see them: plain values, with no Beast types beyond the
// method, so that route code stays small and compiles fast.
namespace delayq::server::http {

using Verb = boost::beast::http::verb;

struct HttpRequest {
    Verb method = Verb::unknown;
    unsigned version = 11;  // 11 for HTTP/1.1
    std::string target;     // as sent: path and query
    std::string path;       // percent-encoded, as sent
    std::string query;      // after '?', percent-encoded
    // Header names in lower case.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // What the head announced of the body: its Content-Length, or that it comes chunked.
    std::optional<std::uint64_t> content_length;
    bool chunked = false;
    std::string remote;  // "address:port" of the client
    // When the head was read: request durations count from it.
    std::chrono::steady_clock::time_point received{};
    // The router's path parameters, percent-decoded: {"queue": "orders/eu"}.
    std::map<std::string, std::string, std::less<>> params;
    // Tells a handler that holds the request for long that its client went away; null when no
    // connection stands behind the request (unit tests).
    std::shared_ptr<ClientWatch> client;
    // The auth entry's name of the caller's token, set by the route guard; empty without an
    // auth file. Per-token shares of the server's resources are counted under it.
    std::string principal;

    // The first header of that name (lower case), or nullopt.
    std::optional<std::string_view> header(std::string_view lower_name) const;
    // A path parameter the route declared; empty when there is none.
    const std::string& param(std::string_view name) const;
    // A query parameter, percent-decoded ('+' is a space); nullopt when absent. Throws
    // InvalidArgument for bad percent-encoding.
    std::optional<std::string> query_param(std::string_view name) const;
    // The token of `Authorization: Bearer TOKEN`, or empty.
    std::string_view bearer_token() const;
    // Whether a body follows the head (chunked, or a Content-Length above 0).
    bool has_body() const { return chunked || content_length.value_or(0) > 0; }
};

struct HttpResponse {
    unsigned status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // Who made the request (the auth entry's name), for the access log only.
    std::string principal;
    // Of the time to answer, how long a long-poll waited for messages: the metrics count it
    // apart from the service's own time.
    std::chrono::nanoseconds waited{0};
};

// Answers a request exactly once, from any thread.
using Reply = std::function<void(HttpResponse)>;
// Handles a request; may answer at once or later (from a worker, or a long-poll's wake-up).
using Handler = std::function<void(HttpRequest, Reply)>;

HttpResponse json_response(unsigned status, std::string body);
// application/problem+json, with Retry-After when the problem has one.
HttpResponse problem_response(const Problem& problem);

}  // namespace delayq::server::http
