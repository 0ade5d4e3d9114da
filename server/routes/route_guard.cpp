#include <boost/algorithm/string/trim.hpp>
#include <boost/beast/core/string.hpp>
#include <chrono>
#include <delayq/error.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "http/percent.hpp"
#include "json/parse.hpp"
#include "json/text.hpp"
#include "routes/route_context.hpp"

namespace delayq::server::routes {
namespace {

// application/json, with or without parameters (charset=utf-8).
bool is_json_media_type(std::string_view content_type) {
    const std::string type =
        boost::algorithm::trim_copy(std::string(content_type.substr(0, content_type.find(';'))));
    return boost::beast::iequals(type, "application/json");
}

// Browsers send a cross-site POST without asking first (a "simple" request) only with a form's
// or text's media type: requiring JSON of every POST, body or not, makes each one ask first,
// which this server never allows. Other methods ask first anyway.
bool needs_json(http::Verb method, const http::HttpRequest& request) {
    return method == http::Verb::post || request.has_body();
}

// Counted in delayq_http_request_duration_seconds (from the request's head to its answer, less
// what a long-poll waited, which delayq_http_long_poll_wait_seconds counts) and
// marked with the token's entry name for the access log. One wrapper for both: each was an
// allocation per request.
http::Reply observed(RouteContext& ctx, http::Verb method, const std::string* route,
                     std::chrono::steady_clock::time_point start, std::string principal,
                     http::Reply reply) {
    return [ctx = &ctx, method, route, start, principal = std::move(principal),
            inner = std::move(reply)](http::HttpResponse r) {
        const auto took = std::chrono::steady_clock::now() - start;
        ctx->requests.observe(boost::beast::http::to_string(method), *route,
                              static_cast<int>(r.status), took - r.waited);
        if (r.waited.count() > 0) ctx->requests.observe_wait(*route, r.waited);
        if (r.principal.empty()) r.principal = principal;
        inner(std::move(r));
    };
}

// What the head alone decides, before the body is read: the token (401, 403) and the media
// type (415).
std::optional<http::HttpResponse> admit(RouteContext& ctx, const Access& access, http::Verb method,
                                        const std::string& route, http::HttpRequest& request) {
    AuthGate::Verdict verdict =
        ctx.auth.check(request.bearer_token(), access, request.param("queue"));
    request.principal = std::move(verdict.principal);
    std::optional<http::HttpResponse> refusal;
    if (verdict.problem) {
        refusal = http::problem_response(*verdict.problem);
        if (verdict.problem->status == 401)
            refusal->headers.emplace_back("WWW-Authenticate", "Bearer");
    } else if (needs_json(method, request) &&
               !is_json_media_type(request.header("content-type").value_or(""))) {
        refusal = http::problem_response(
            {415, "unsupported_media_type",
             "a POST, and any request with a body, must send Content-Type: application/json"});
    }
    if (refusal) {
        ctx.requests.observe(boost::beast::http::to_string(request.method), route,
                             static_cast<int>(refusal->status),
                             std::chrono::steady_clock::now() - request.received);
        refusal->principal = request.principal;
    }
    return refusal;
}

}  // namespace

std::size_t BodyLimits::bytes(Body body) const {
    switch (body) {
        case Body::kSmall:
            return small;
        case Body::kLeaseList:
            return lease_list;
        case Body::kMessage:
            return message;
        case Body::kBatch:
            return batch;
    }
    return small;
}

void add_route(http::Router& router, RouteContext& context, http::Verb method,
               std::string_view pattern, Access access, http::Handler handler, Body body) {
    // Owned by the router's route, which outlives every request it routes.
    auto route = std::make_shared<const std::string>(pattern);
    http::Route r;
    r.admit = [ctx = &context, access, method, route](http::HttpRequest& request) {
        return admit(*ctx, access, method, *route, request);
    };
    // Counted under the request's method: a GET route's HEAD requests are not its GETs.
    r.handle = [ctx = &context, handler = std::move(handler), route](http::HttpRequest request,
                                                                     http::Reply reply) {
        std::string principal = request.principal;
        reply = observed(*ctx, request.method, route.get(), request.received, std::move(principal),
                         std::move(reply));
        handler(std::move(request), std::move(reply));
    };
    r.max_body = context.bodies.bytes(body);
    // What the OpenAPI document's security says: no token, any token, or a scope.
    r.scope = access.kind == Access::Kind::kOpen    ? std::string()
              : access.kind == Access::Kind::kToken ? std::string("token")
                                                    : std::string(scope_name(access.scope));
    router.add(method, pattern, std::move(r));
}

void add_blocking_route(http::Router& router, RouteContext& context, http::Verb method,
                        std::string_view pattern, Access access, BlockingHandler handler,
                        Body body) {
    add_route(
        router, context, method, pattern, access,
        [ctx = &context, handler = std::move(handler)](http::HttpRequest request,
                                                       http::Reply reply) {
            run_blocking(*ctx, std::move(reply), handler, std::move(request));
        },
        body);
}

void post_work(RouteContext& context, const std::string& principal, const http::Reply& reply,
               std::function<void()> task) {
    if (!context.pool.try_post(principal, std::move(task))) {
        reply(http::problem_response(rate_limited()));
    }
}

void run_blocking(RouteContext& context, http::Reply reply, BlockingHandler work,
                  http::HttpRequest request) {
    const std::string principal = request.principal;
    auto shared_reply = std::make_shared<http::Reply>(std::move(reply));
    post_work(context, principal, *shared_reply,
              [shared_reply, work = std::move(work), request = std::move(request)] {
                  http::HttpResponse response;
                  try {
                      response = work(request);
                  } catch (...) {
                      response = http::problem_response(problem_from(std::current_exception()));
                  }
                  (*shared_reply)(std::move(response));
              });
}

QueryParams query_params(const http::HttpRequest& request) {
    QueryParams out;
    std::string_view rest = request.query;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (pair.empty()) continue;
        const std::size_t eq = pair.find('=');
        const auto key = http::percent_decode(pair.substr(0, eq), true);
        const auto value =
            http::percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
        if (!key || !value) throw InvalidArgument("bad percent-encoding in the query");
        out.emplace_back(*key, *value);
    }
    return out;
}

nlohmann::json json_body(const http::HttpRequest& request) {
    if (request.body.empty()) throw InvalidArgument("this needs a JSON body");
    return json::parse_json(request.body);
}

http::HttpResponse json_answer(unsigned status, const nlohmann::json& body) {
    return http::json_response(status, json::to_text(body));
}

}  // namespace delayq::server::routes
