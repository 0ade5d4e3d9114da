#include <boost/algorithm/string/trim.hpp>
#include <boost/beast/core/string.hpp>
#include <chrono>
#include <delayq/error.hpp>
#include <exception>
#include <memory>
#include <string>

#include "service/route_context.hpp"

namespace delayq::server::service {
namespace {

// application/json, with or without parameters (charset=utf-8).
bool is_json_media_type(std::string_view content_type) {
    const std::string type =
        boost::algorithm::trim_copy(std::string(content_type.substr(0, content_type.find(';'))));
    return boost::beast::iequals(type, "application/json");
}

// The answer as the route guard passes it on: counted in delayq_http_request_duration_seconds
// (from routing to the answer) and marked with the token's entry name for the access log. One
// wrapper for both: each was an allocation per request.
http::Reply observed(RouteContext& ctx, http::Verb method, const std::string* route,
                     std::chrono::steady_clock::time_point start, std::string principal,
                     http::Reply reply) {
    return [ctx = &ctx, method, route, start, principal = std::move(principal),
            inner = std::move(reply)](http::HttpResponse r) {
        ctx->requests.observe(boost::beast::http::to_string(method), *route,
                              static_cast<int>(r.status), std::chrono::steady_clock::now() - start);
        if (r.principal.empty()) r.principal = principal;
        inner(std::move(r));
    };
}

}  // namespace

void add_route(http::Router& router, RouteContext& context, http::Verb method,
               std::string_view pattern, Access access, http::Handler handler) {
    // Owned by the router's handler, which outlives every request it routes.
    auto route = std::make_shared<const std::string>(pattern);
    router.add(
        method, pattern,
        [ctx = &context, access, handler = std::move(handler), method, route](
            http::HttpRequest request, http::Reply reply) {
            const auto start = std::chrono::steady_clock::now();
            AuthGate::Verdict verdict =
                ctx->auth.check(request.bearer_token(), access, request.param("queue"));
            request.principal = verdict.principal;
            reply = observed(*ctx, method, route.get(), start, std::move(verdict.principal),
                             std::move(reply));
            if (verdict.problem) {
                http::HttpResponse r = http::problem_response(*verdict.problem);
                if (verdict.problem->status == 401) {
                    r.headers.emplace_back("WWW-Authenticate", "Bearer");
                }
                return reply(std::move(r));
            }
            if (!request.body.empty() &&
                !is_json_media_type(request.header("content-type").value_or(""))) {
                return reply(http::problem_response(
                    {415, "unsupported_media_type",
                     "a request body must be JSON, sent as Content-Type: application/json"}));
            }
            handler(std::move(request), std::move(reply));
        },
        access.kind == Access::Kind::kOpen ? std::string() : std::string(scope_name(access.scope)));
}

void add_blocking_route(http::Router& router, RouteContext& context, http::Verb method,
                        std::string_view pattern, Access access, BlockingHandler handler) {
    add_route(router, context, method, pattern, access,
              [ctx = &context, handler = std::move(handler)](http::HttpRequest request,
                                                             http::Reply reply) {
                  run_blocking(*ctx, std::move(reply), handler, std::move(request));
              });
}

void run_blocking(RouteContext& context, http::Reply reply, BlockingHandler work,
                  http::HttpRequest request) {
    auto shared_reply = std::make_shared<http::Reply>(std::move(reply));
    const bool posted =
        context.pool.try_post([shared_reply, work = std::move(work), request = std::move(request)] {
            http::HttpResponse response;
            try {
                response = work(request);
            } catch (...) {
                response = http::problem_response(problem_from(std::current_exception()));
            }
            (*shared_reply)(std::move(response));
        });
    if (!posted) {
        http::HttpResponse r = http::problem_response(
            {429, "rate_limited", "the server has as much work queued as it takes; try again"});
        r.headers.emplace_back("Retry-After", "1");
        (*shared_reply)(std::move(r));
    }
}

nlohmann::json json_body(const http::HttpRequest& request) {
    if (request.body.empty()) throw InvalidArgument("this needs a JSON body");
    nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    if (body.is_discarded()) throw InvalidArgument("the body is not valid JSON");
    return body;
}

http::HttpResponse json_answer(unsigned status, const nlohmann::json& body) {
    return http::json_response(status,
                               body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace delayq::server::service
