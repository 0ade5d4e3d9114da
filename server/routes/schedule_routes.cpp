#include <delayq/error.hpp>
#include <delayq/schedules.hpp>

#include "api/schedules_json.hpp"
#include "json/fields.hpp"
#include "json/schedule.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

constexpr std::string_view kSchedules = "/v1/queues/{queue}/schedules";
constexpr std::string_view kSchedule = "/v1/queues/{queue}/schedules/{name}";
constexpr std::string_view kScheduleTrigger = "/v1/queues/{queue}/schedules/{name}/trigger";
constexpr std::string_view kSchedulePause = "/v1/queues/{queue}/schedules/{name}/pause";
constexpr std::string_view kScheduleResume = "/v1/queues/{queue}/schedules/{name}/resume";
constexpr std::string_view kScheduleNext = "/v1/queues/{queue}/schedules/{name}/next";

http::HttpResponse no_schedule(const http::HttpRequest& r) {
    return http::problem_response(
        not_found("no schedule \"" + r.param("name") + "\" in queue \"" + r.param("queue") + "\""));
}

// The queue's schedules, the names in the path checked first: a bad one is a 400 before any call
// to Redis, rather than a 404 after one.
Schedules named_schedules(RouteContext& ctx, const http::HttpRequest& r) {
    Schedules schedules = ctx.client.schedules(r.param("queue"));
    validate_schedule_name(r.param("name"));
    return schedules;
}

// The actions take no body; one sent anyway must be empty (`{}`), so that an option a client
// believes they take is refused rather than ignored.
void no_body(const http::HttpRequest& r) {
    if (r.body.empty()) return;
    const json::Json body = json_body(r);
    json::require_object(body, "this request's body");
    if (!body.empty()) json::unknown_field(body.begin().key());
}

http::HttpResponse list_schedules(RouteContext& ctx, const http::HttpRequest& r) {
    const PageRequest page = parse_schedule_list_query(query_params(r));
    Schedules schedules = ctx.client.schedules(r.param("queue"));
    return json_answer(200, json::schedule_page_json(r.param("queue"), schedules.list(page)));
}

// The name comes from the body; PUT is the way to change a schedule that exists.
http::HttpResponse add_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    const NamedSchedule s = parse_named_schedule(json_body(r));
    Schedules schedules = ctx.client.schedules(r.param("queue"));
    validate_schedule_name(s.name);
    validate_schedule(s.spec, ctx.max_payload);
    const PutResult result = schedules.add(s.name, s.spec);
    if (result.status == PutStatus::kExists) {
        return http::problem_response(
            {409, "conflict",
             "schedule \"" + s.name + "\" exists in queue \"" + r.param("queue") +
                 "\"; nothing was changed (PUT .../schedules/{name} changes it)"});
    }
    return json_answer(201, json::put_result_json(result));
}

http::HttpResponse get_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    const std::optional<ScheduleInfo> info = named_schedules(ctx, r).get(r.param("name"));
    if (!info) return no_schedule(r);
    return json_answer(200, json::schedule_json(r.param("queue"), *info));
}

// Declarative: 201 when made, 200 when changed or already as asked (the body's status says
// which), so that a deploy may declare its schedules at every start.
http::HttpResponse put_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    const ScheduleSpec spec = json::parse_schedule_spec(json_body(r));
    Schedules schedules = named_schedules(ctx, r);
    validate_schedule(spec, ctx.max_payload);
    const PutResult result = schedules.upsert(r.param("name"), spec);
    return json_answer(result.status == PutStatus::kCreated ? 201 : 200,
                       json::put_result_json(result));
}

http::HttpResponse remove_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    if (!named_schedules(ctx, r).remove(r.param("name"))) return no_schedule(r);
    return json_answer(200, {{"name", r.param("name")}, {"status", "removed"}});
}

// Answers the schedule as it is after the change: pausing clears its next occurrence, resuming
// sets it.
http::HttpResponse pause_or_resume(RouteContext& ctx, const http::HttpRequest& r, bool pause) {
    no_body(r);
    Schedules schedules = named_schedules(ctx, r);
    const bool found = pause ? schedules.pause(r.param("name")) : schedules.resume(r.param("name"));
    const std::optional<ScheduleInfo> info = found ? schedules.get(r.param("name")) : std::nullopt;
    if (!info) return no_schedule(r);
    return json_answer(200, json::schedule_json(r.param("queue"), *info));
}

http::HttpResponse pause_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    return pause_or_resume(ctx, r, true);
}

http::HttpResponse resume_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    return pause_or_resume(ctx, r, false);
}

// A message sent now, as a send answers it: 201 with its id and due time.
http::HttpResponse trigger_schedule(RouteContext& ctx, const http::HttpRequest& r) {
    no_body(r);
    const std::optional<TriggerResult> sent = named_schedules(ctx, r).trigger(r.param("name"));
    if (!sent) return no_schedule(r);
    return json_answer(201, {{"id", sent->id}, {"due_ms", json::unix_ms(sent->instant)}});
}

http::HttpResponse next_occurrences_of(RouteContext& ctx, const http::HttpRequest& r) {
    const NextQuery q = parse_next_query(query_params(r));
    const auto occurrences = named_schedules(ctx, r).next(r.param("name"), q.count, q.from);
    if (!occurrences) return no_schedule(r);
    return json_answer(200, json::occurrences_json(*occurrences));
}

}  // namespace

void add_schedule_routes(http::Router& router, RouteContext& context) {
    const auto bind =
        [ctx = &context](http::HttpResponse (*fn)(RouteContext&, const http::HttpRequest&)) {
            return [ctx, fn](const http::HttpRequest& r) { return fn(*ctx, r); };
        };
    const Access read = Access::queue(Scope::kRead);
    const Access change = Access::queue(Scope::kSchedule);
    add_blocking_route(router, context, http::Verb::get, kSchedules, read, bind(list_schedules));
    // A spec carries a payload of up to the send's limit, escaped or in base64, as a send does.
    add_blocking_route(router, context, http::Verb::post, kSchedules, change, bind(add_schedule),
                       Body::kMessage);
    add_blocking_route(router, context, http::Verb::get, kSchedule, read, bind(get_schedule));
    add_blocking_route(router, context, http::Verb::put, kSchedule, change, bind(put_schedule),
                       Body::kMessage);
    add_blocking_route(router, context, http::Verb::delete_, kSchedule, change,
                       bind(remove_schedule));
    add_blocking_route(router, context, http::Verb::post, kScheduleTrigger, change,
                       bind(trigger_schedule));
    add_blocking_route(router, context, http::Verb::post, kSchedulePause, change,
                       bind(pause_schedule));
    add_blocking_route(router, context, http::Verb::post, kScheduleResume, change,
                       bind(resume_schedule));
    add_blocking_route(router, context, http::Verb::get, kScheduleNext, read,
                       bind(next_occurrences_of));
}

}  // namespace delayq::server::routes
