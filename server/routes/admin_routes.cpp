#include <delayq/error.hpp>
#include <delayq/queue_admin.hpp>
#include <vector>

#include "api/admin_json.hpp"
#include "api/history_json.hpp"
#include "json/queue.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

using json::Json;

constexpr std::string_view kQueues = "/v1/queues";
constexpr std::string_view kQueue = "/v1/queues/{queue}";
constexpr std::string_view kMessageList = "/v1/queues/{queue}/messages";
constexpr std::string_view kRequeue = "/v1/queues/{queue}/dead/requeue";
constexpr std::string_view kPurge = "/v1/queues/{queue}/dead/purge";
constexpr std::string_view kHistory = "/v1/queues/{queue}/history";
constexpr std::string_view kTimeline = "/v1/queues/{queue}/timeline";
constexpr std::string_view kRedis = "/v1/redis";
constexpr std::string_view kOverview = "/v1/overview";

// The queues the caller's token covers (all of them without an auth file).
http::HttpResponse list_queues(RouteContext& ctx, const http::HttpRequest& r) {
    const auto shown = ctx.auth.shows(r.bearer_token());
    std::vector<QueueCounts> queues;
    for (const auto& name : ctx.client.queues()) {
        if (!shown(name)) continue;
        queues.push_back({name, ctx.client.admin(name).stats()});
    }
    return json_answer(200, queue_list_json(queues));
}

http::HttpResponse get_queue(RouteContext& ctx, const http::HttpRequest& r) {
    QueueAdmin admin = ctx.client.admin(r.param("queue"));
    const QueueStats stats = admin.stats();
    return json_answer(200, json::queue_json(r.param("queue"), stats, admin.settings()));
}

http::HttpResponse list_messages(RouteContext& ctx, const http::HttpRequest& r) {
    const ListQuery q = parse_list_query(query_params(r));
    return json_answer(200,
                       message_page_json(ctx.client.admin(r.param("queue")).list(q.state, q.page)));
}

http::HttpResponse timeline(RouteContext& ctx, const http::HttpRequest& r) {
    const TimelineQuery q = parse_timeline_query(query_params(r));
    return json_answer(
        200, json::timeline_json(r.param("queue"),
                                 ctx.client.admin(r.param("queue")).timeline(q.bucket, q.buckets)));
}

// The dashboard's first page, which every open page polls each second: the queues the token
// covers from one shared read of Redis (at most one a second per server, of at most 1000
// queues), so that fifty open pages cost Redis what one does.
http::HttpResponse overview(RouteContext& ctx, const http::HttpRequest& r) {
    const std::shared_ptr<const runtime::Overview> overview = ctx.overview.get();
    if (!overview->redis_up) throw ConnectionError("Redis did not answer the overview's read");
    const auto shown = ctx.auth.shows(r.bearer_token());
    nlohmann::json queues = nlohmann::json::array();
    for (const runtime::OverviewQueue& q : overview->queues) {
        if (!shown(q.queue)) continue;
        queues.push_back(overview_queue_json(q.queue, q.now, q.hour_start, q.recording));
    }
    return json_answer(200, {{"truncated", overview->truncated}, {"queues", std::move(queues)}});
}

// For the operators' Redis panel: whether it can evict, how full it is, which engine runs.
http::HttpResponse redis(RouteContext& ctx, const http::HttpRequest& /*r*/) {
    const std::vector<RedisNodeInfo> nodes = ctx.client.redis_info();
    return json_answer(200, redis_json(ctx.client.engine(), nodes));
}

http::HttpResponse requeue(RouteContext& ctx, const http::HttpRequest& r) {
    const DeadLetterSelector which = parse_dead_selector(json_body(r));
    const std::size_t n = ctx.client.admin(r.param("queue")).requeue(which);
    return json_answer(200, {{"requeued", n}});
}

http::HttpResponse purge(RouteContext& ctx, const http::HttpRequest& r) {
    const DeadLetterSelector which = parse_dead_selector(json_body(r));
    const std::size_t n = ctx.client.admin(r.param("queue")).purge(which);
    return json_answer(200, {{"purged", n}});
}

// Settings first, then pause or resume: a bad setting changes nothing.
http::HttpResponse patch_queue(RouteContext& ctx, const http::HttpRequest& r) {
    const QueuePatch patch = parse_queue_patch(json_body(r));
    QueueAdmin admin = ctx.client.admin(r.param("queue"));
    if (patch.changes_settings()) admin.update_settings(patch.update(admin.settings()));
    if (patch.paused) {
        if (*patch.paused) {
            admin.pause();
        } else {
            admin.resume();
        }
    }
    return json_answer(
        200, {{"queue", r.param("queue")}, {"settings", json::settings_json(admin.settings())}});
}

http::HttpResponse delete_queue(RouteContext& ctx, const http::HttpRequest& r) {
    const bool force = parse_force(query_params(r));
    const DeleteResult result = ctx.client.admin(r.param("queue")).delete_queue(force);
    if (result.status == DeleteStatus::kInFlight) {
        return http::problem_response(
            {409, "conflict",
             "queue \"" + r.param("queue") + "\" has " + std::to_string(result.in_flight) +
                 " leased messages; nothing was deleted (?force=true deletes them too)"});
    }
    return json_answer(200, json::delete_result_json(result));
}

http::HttpResponse history(RouteContext& ctx, const http::HttpRequest& r) {
    ctx.client.admin(r.param("queue"));  // a bad name is a 400, and is never watched
    const bool recording = ctx.history_recorder.watch(r.param("queue"));
    // Every point Redis holds: an hour's at most (kHistoryKeep).
    const std::vector<QueueStats> points = ctx.client.admin(r.param("queue")).history(TimePoint{});
    return json_answer(200, history_json(r.param("queue"), points, recording));
}

}  // namespace

void add_admin_routes(http::Router& router, RouteContext& context) {
    const auto bind =
        [ctx = &context](http::HttpResponse (*fn)(RouteContext&, const http::HttpRequest&)) {
            return [ctx, fn](const http::HttpRequest& r) { return fn(*ctx, r); };
        };
    const Access read = Access::queue(Scope::kRead);
    const Access admin = Access::queue(Scope::kAdmin);
    add_blocking_route(router, context, http::Verb::get, kQueues, Access::any(Scope::kRead),
                       bind(list_queues));
    add_blocking_route(router, context, http::Verb::get, kQueue, read, bind(get_queue));
    add_blocking_route(router, context, http::Verb::get, kMessageList, read, bind(list_messages));
    add_blocking_route(router, context, http::Verb::post, kRequeue, admin, bind(requeue));
    add_blocking_route(router, context, http::Verb::post, kPurge, admin, bind(purge));
    add_blocking_route(router, context, http::Verb::patch, kQueue, admin, bind(patch_queue));
    add_blocking_route(router, context, http::Verb::delete_, kQueue, admin, bind(delete_queue));
    add_blocking_route(router, context, http::Verb::get, kHistory, read, bind(history));
    add_blocking_route(router, context, http::Verb::get, kTimeline, read, bind(timeline));
    add_blocking_route(router, context, http::Verb::get, kRedis, Access::any(Scope::kRead),
                       bind(redis));
    add_blocking_route(router, context, http::Verb::get, kOverview, Access::any(Scope::kRead),
                       bind(overview));
}

}  // namespace delayq::server::routes
