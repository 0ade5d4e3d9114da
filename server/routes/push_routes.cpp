#include <delayq/error.hpp>
#include <delayq/push.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "json/push.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

constexpr std::string_view kPushTarget = "/v1/queues/{queue}/push-target";

http::HttpResponse no_push_target(const http::HttpRequest& r) {
    return http::problem_response(
        not_found("queue \"" + r.param("queue") + "\" has no push target"));
}

// Header names, limits and how many secrets: a reading role never sees a value or a secret.
http::HttpResponse get_push_target(RouteContext& ctx, const http::HttpRequest& r) {
    const std::optional<PushTargetInfo> info = ctx.client.push_targets(r.param("queue")).get();
    if (!info) return no_push_target(r);
    return json_answer(200, json::push_target_json(r.param("queue"), *info));
}

// Declarative, as a schedule's PUT: 201 when made, 200 when changed or already as given (the
// body's status says which), so that a deploy may declare the target at every start. The whole
// target is checked before Redis is asked, so that a bad one writes nothing.
http::HttpResponse put_push_target(RouteContext& ctx, const http::HttpRequest& r) {
    const PushTarget target = json::push_target_from_json(json_body(r));
    PushTargets targets = ctx.client.push_targets(r.param("queue"));
    validate_push_target(target);
    const PushSetStatus status = targets.set(target);
    return json_answer(status == PushSetStatus::kCreated ? 201 : 200, json::push_set_json(status));
}

// The queue's messages stay; nothing pushes them any more.
http::HttpResponse remove_push_target(RouteContext& ctx, const http::HttpRequest& r) {
    if (!ctx.client.push_targets(r.param("queue")).remove()) return no_push_target(r);
    http::HttpResponse answer;
    answer.status = 204;
    return answer;
}

}  // namespace

void add_push_routes(http::Router& router, RouteContext& context) {
    const auto bind =
        [ctx = &context](http::HttpResponse (*fn)(RouteContext&, const http::HttpRequest&)) {
            return [ctx, fn](const http::HttpRequest& r) { return fn(*ctx, r); };
        };
    // Every operation is admin's, reading included: the target names where the queue's messages
    // go and with which credentials' names, which a read token's dashboards need not show.
    const Access admin = Access::queue(Scope::kAdmin);
    add_blocking_route(router, context, http::Verb::get, kPushTarget, admin, bind(get_push_target));
    // The longest target the library takes (kMaxPushHeaders headers of kMaxPushHeaderBytes,
    // escaped) is past a small body's 64 KiB; a lease list's 1 MiB holds it with room.
    add_blocking_route(router, context, http::Verb::put, kPushTarget, admin, bind(put_push_target),
                       Body::kLeaseList);
    add_blocking_route(router, context, http::Verb::delete_, kPushTarget, admin,
                       bind(remove_push_target));
}

}  // namespace delayq::server::routes
