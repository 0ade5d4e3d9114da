#include <delayq/error.hpp>
#include <delayq/queue.hpp>
#include <delayq/queue_admin.hpp>
#include <exception>
#include <utility>

#include "api/problem.hpp"
#include "json/durability.hpp"
#include "json/fields.hpp"
#include "json/message.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

using json::Json;

constexpr std::string_view kMessageSend = "/v1/queues/{queue}/messages";
constexpr std::string_view kBatch = "/v1/queues/{queue}/messages/batch";
constexpr std::string_view kMessage = "/v1/queues/{queue}/messages/{id}";
constexpr std::string_view kReschedule = "/v1/queues/{queue}/messages/{id}/reschedule";

http::HttpResponse no_message(const http::HttpRequest& r) {
    return http::problem_response(
        not_found("no message \"" + r.param("id") + "\" in queue \"" + r.param("queue") + "\""));
}

http::HttpResponse conflict(const http::HttpRequest& r, std::string_view why) {
    return http::problem_response(
        {409, "conflict", "message \"" + r.param("id") + "\" " + std::string(why)});
}

constexpr std::string_view kInFlight = "is in flight: a consumer holds its lease";
constexpr std::string_view kDead = "is a dead letter: requeue or purge it instead";

http::HttpResponse send_answer(const SendResult& result) {
    return http::json_response(result.duplicate ? 200 : 201, json::send_result_text(result));
}

// Sends `m` through the queue's send line, without blocking: concurrent requests share script
// calls, and the answer comes from the line's thread.
void send_parsed(RouteContext& ctx, const http::HttpRequest& r, const Message& m,
                 const Durability& durability, const http::Reply& reply) {
    Queue queue = ctx.queues.get(r.param("queue"), durability);
    queue.send_async(
        m.payload, m.options,
        // A copy: should send_async refuse the message, the caller's catch still answers.
        [reply](const std::exception_ptr& error, const SendResult& result) {
            reply(error ? http::problem_response(problem_from(error)) : send_answer(result));
        });
}

// Bodies up to this size are parsed on the I/O thread (tens of microseconds); larger ones on a
// worker, so that a client sending megabytes cannot hold up the other connections of its thread.
constexpr std::size_t kParseOnIoThread = std::size_t{64} * 1024;

// Everything is checked before anything is written: the body, then the queue's name, then (in
// send_async) the message against the queue's options.
void send(RouteContext& ctx, http::HttpRequest r, const http::Reply& reply) {
    auto parse_and_send = [ctx = &ctx, reply](const http::HttpRequest& request) {
        try {
            Json body = json_body(request);
            const Durability durability = json::take_durability(body);
            send_parsed(*ctx, request, json::parse_message(body), durability, reply);
        } catch (...) {
            reply(http::problem_response(problem_from(std::current_exception())));
        }
    };
    if (r.body.size() <= kParseOnIoThread) return parse_and_send(r);
    const std::string principal = r.principal;
    post_work(ctx, principal, reply, [parse_and_send, r = std::move(r)] { parse_and_send(r); });
}

http::HttpResponse send_batch(RouteContext& ctx, const http::HttpRequest& r) {
    Json body = json_body(r);
    const Durability durability = json::take_durability(body);
    const std::vector<Message> messages = json::parse_batch(body);
    Queue queue = ctx.queues.get(r.param("queue"), durability);
    return http::json_response(201, json::send_results_text(queue.send_batch(messages)));
}

http::HttpResponse get(RouteContext& ctx, const http::HttpRequest& r) {
    const std::optional<MessageInfo> info = ctx.client.admin(r.param("queue")).get(r.param("id"));
    if (!info) return no_message(r);
    return json_answer(200, json::message_info_json(*info));
}

http::HttpResponse cancel(RouteContext& ctx, const http::HttpRequest& r) {
    switch (ctx.client.queue(r.param("queue")).cancel(r.param("id"))) {
        case CancelResult::kCancelled:
            return json_answer(200, {{"id", r.param("id")}, {"status", "cancelled"}});
        case CancelResult::kNotFound:
            return no_message(r);
        case CancelResult::kInFlight:
            return conflict(r, kInFlight);
        case CancelResult::kDead:
            return conflict(r, kDead);
    }
    return no_message(r);
}

http::HttpResponse reschedule(RouteContext& ctx, const http::HttpRequest& r) {
    const json::RescheduleRequest when = json::parse_reschedule(json_body(r));
    Queue queue = ctx.client.queue(r.param("queue"));
    const RescheduleResult result = when.delay ? queue.reschedule(r.param("id"), *when.delay)
                                               : queue.reschedule_at(r.param("id"), *when.at);
    switch (result.status) {
        case RescheduleStatus::kRescheduled:
            return json_answer(200, {{"id", r.param("id")}, {"due_ms", json::unix_ms(result.due)}});
        case RescheduleStatus::kNotFound:
            return no_message(r);
        case RescheduleStatus::kInFlight:
            return conflict(r, kInFlight);
        case RescheduleStatus::kDead:
            return conflict(r, kDead);
    }
    return no_message(r);
}

}  // namespace

void add_message_routes(http::Router& router, RouteContext& context) {
    const auto bind =
        [ctx = &context](http::HttpResponse (*fn)(RouteContext&, const http::HttpRequest&)) {
            return [ctx, fn](const http::HttpRequest& r) { return fn(*ctx, r); };
        };
    const Access send_access = Access::queue(Scope::kSend);
    add_route(
        router, context, http::Verb::post, kMessageSend, send_access,
        [ctx = &context](http::HttpRequest r, const http::Reply& reply) {
            send(*ctx, std::move(r), reply);
        },
        Body::kMessage);
    add_blocking_route(router, context, http::Verb::post, kBatch, send_access, bind(send_batch),
                       Body::kBatch);
    add_blocking_route(router, context, http::Verb::get, kMessage, Access::queue(Scope::kRead),
                       bind(get));
    add_blocking_route(router, context, http::Verb::delete_, kMessage, send_access, bind(cancel));
    add_blocking_route(router, context, http::Verb::post, kReschedule, send_access,
                       bind(reschedule));
}

}  // namespace delayq::server::routes
