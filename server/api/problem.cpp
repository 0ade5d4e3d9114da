#include "api/problem.hpp"

#include <delayq/error.hpp>
#include <nlohmann/json.hpp>

namespace delayq::server {
namespace {

const char* title_of(int status) {
    switch (status) {
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 409:
            return "Conflict";
        case 413:
            return "Content Too Large";
        case 415:
            return "Unsupported Media Type";
        case 429:
            return "Too Many Requests";
        case 503:
            return "Service Unavailable";
        case 507:
            return "Insufficient Storage";
        default:
            return "Internal Server Error";
    }
}

}  // namespace

std::string Problem::json() const {
    nlohmann::json body = {{"type", "about:blank"},
                           {"title", title_of(status)},
                           {"status", status},
                           {"code", code},
                           {"detail", detail}};
    if (extensions.is_object()) body.update(extensions);
    return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Problem bad_request(std::string detail) { return {400, "bad_request", std::move(detail)}; }
Problem not_found(std::string detail) { return {404, "not_found", std::move(detail)}; }

Problem problem_from(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const InvalidArgument& e) {
        return bad_request(e.what());
    } catch (const DurabilityError& e) {
        return {503,
                "not_replicated",
                e.what(),
                {{"ids", e.ids()}, {"replicas", e.asked()}, {"confirmed", e.confirmed()}}};
    } catch (const ConnectionError&) {
        return {503, "redis_unavailable", "Redis cannot be reached; try again"};
    } catch (const OutOfMemoryError&) {
        return {507, "redis_out_of_memory", "Redis is at maxmemory; nothing was written"};
    } catch (const ConfigurationError& e) {
        return {503, "redis_unavailable", e.what()};
    } catch (...) {
        return {500, "internal_error", "the request failed inside the server; see its log"};
    }
}

Problem rate_limited() {
    return {429, "rate_limited", "the server has as much work queued as it takes; try again"};
}

}  // namespace delayq::server
