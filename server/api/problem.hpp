#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

// Errors as the API answers them: application/problem+json (RFC 9457) with a stable code.
namespace delayq::server {

struct Problem {
    int status = 500;
    std::string code;    // stable, for programs: bad_request, not_found, redis_unavailable, ...
    std::string detail;  // for people; never a stack trace, a token or a password
    // Members of the code's own beside those (RFC 9457 extensions): not_replicated's "ids",
    // "replicas" and "confirmed". An object, or null for none.
    nlohmann::json extensions{};

    // The body: {"type", "title", "status", "code", "detail"} and the extensions.
    std::string json() const;
    // Seconds a client should wait before trying again (Retry-After), or 0 for none.
    int retry_after_s() const { return status == 503 || status == 429 ? 1 : 0; }
};

Problem bad_request(std::string detail);
Problem not_found(std::string detail);
// 429: the workers have as much queued as they take, or this token its share of them.
Problem rate_limited();

// The Problem for an exception a library call threw: InvalidArgument is 400 (nothing was
// written), DurabilityError 503 not_replicated with the send's ids (stored, but not confirmed
// by enough replicas: send again with them), ConnectionError and TimeoutError 503, OutOfMemoryError
// 507, ConfigurationError 503 (the Redis server or the queue's layout cannot be used as it is),
// anything else 500 with a fixed text (its message may hold what a client should not see).
Problem problem_from(const std::exception_ptr& error);

}  // namespace delayq::server
