#include "serve_parsers.hpp"

#include <delayq/push.hpp>
#include <delayq/schedules.hpp>
#include <delayq/validate.hpp>
#include <string>

#include "api/admin_json.hpp"
#include "api/schedules_json.hpp"
#include "codec/settings.hpp"
#include "json/durability.hpp"
#include "json/fields.hpp"
#include "json/message.hpp"
#include "json/push.hpp"
#include "json/schedule.hpp"
#include "routes/route_context.hpp"

namespace delayq::fuzz {
namespace {

using server::http::HttpRequest;
namespace routes = server::routes;

nlohmann::json body_or_empty(const HttpRequest& r) {
    return r.body.empty() ? nlohmann::json::object() : routes::json_body(r);
}

// schedule_routes.cpp's no_body: an action's body is empty or `{}`.
void no_body(const HttpRequest& r) {
    if (r.body.empty()) return;
    const nlohmann::json body = routes::json_body(r);
    json::require_object(body, "this request's body");
    if (!body.empty()) json::unknown_field(body.begin().key());
}

void message_routes(std::string_view p, const HttpRequest& r) {
    const bool post = r.method == server::http::Verb::post;
    if (p == "/v1/queues/{queue}/messages" && post) {
        nlohmann::json body = routes::json_body(r);
        validate_durability(json::take_durability(body));
        const Message m = json::parse_message(body);
        validate_message(m.payload, m.options, QueueOptions{});
    } else if (p == "/v1/queues/{queue}/messages/batch") {
        nlohmann::json body = routes::json_body(r);
        validate_durability(json::take_durability(body));
        for (const Message& m : json::parse_batch(body)) {
            validate_message(m.payload, m.options, QueueOptions{});
        }
    } else if (p == "/v1/queues/{queue}/messages/{id}") {
        validate_message_id(r.param("id"));
    } else if (p == "/v1/queues/{queue}/messages/{id}/reschedule") {
        validate_message_id(r.param("id"));
        json::parse_reschedule(routes::json_body(r));
    }
}

void lease_routes(std::string_view p, const HttpRequest& r, const server::LeaseOpener& opener) {
    if (p == "/v1/queues/{queue}/leases") {
        server::parse_lease_request(body_or_empty(r));
    } else if (p == "/v1/queues/{queue}/ack" || p == "/v1/queues/{queue}/release") {
        server::parse_lease_list(routes::json_body(r), opener);
    } else if (p == "/v1/queues/{queue}/extend") {
        server::parse_extend(routes::json_body(r), opener);
    } else if (p == "/v1/queues/{queue}/nack") {
        server::parse_nack(routes::json_body(r), opener);
    } else if (p == "/v1/queues/{queue}/reject") {
        server::parse_reject(routes::json_body(r), opener);
    }
}

void admin_routes(std::string_view p, const HttpRequest& r) {
    using server::http::Verb;
    if (p == "/v1/queues/{queue}/messages" && r.method != Verb::post) {
        server::parse_list_query(routes::query_params(r));
    } else if (p == "/v1/queues/{queue}/timeline") {
        server::parse_timeline_query(routes::query_params(r));
    } else if (p == "/v1/queues/{queue}/dead/requeue" || p == "/v1/queues/{queue}/dead/purge") {
        server::parse_dead_selector(routes::json_body(r));
    } else if (p == "/v1/queues/{queue}" && r.method == Verb::patch) {
        const server::QueuePatch patch = server::parse_queue_patch(routes::json_body(r));
        // What QueueAdmin::update_settings checks before its script runs.
        if (patch.changes_settings()) {
            detail::settings_codec::encode_update(patch.update(QueueSettings{}));
        }
    } else if (p == "/v1/queues/{queue}" && r.method == Verb::delete_) {
        server::parse_force(routes::query_params(r));
    }
}

void schedule_routes(std::string_view p, const HttpRequest& r) {
    using server::http::Verb;
    if (p == "/v1/queues/{queue}/schedules" && r.method == Verb::get) {
        server::parse_schedule_list_query(routes::query_params(r));
    } else if (p == "/v1/queues/{queue}/schedules") {
        const server::NamedSchedule s = server::parse_named_schedule(routes::json_body(r));
        validate_schedule_name(s.name);
        validate_schedule(s.spec);
    } else if (p == "/v1/queues/{queue}/schedules/{name}" && r.method == Verb::put) {
        validate_schedule_name(r.param("name"));
        validate_schedule(json::parse_schedule_spec(routes::json_body(r)));
    } else if (p == "/v1/queues/{queue}/schedules/{name}/trigger" ||
               p == "/v1/queues/{queue}/schedules/{name}/pause" ||
               p == "/v1/queues/{queue}/schedules/{name}/resume") {
        no_body(r);
    } else if (p == "/v1/queues/{queue}/schedules/{name}/next") {
        server::parse_next_query(routes::query_params(r));
    }
}

}  // namespace

void parse_route_request(std::string_view pattern, const HttpRequest& request,
                         const server::LeaseOpener& opener) {
    // Every queue route's library call starts by checking the name (Client::queue, admin, ...).
    if (request.params.contains("queue")) validate_queue_name(request.param("queue"));
    message_routes(pattern, request);
    lease_routes(pattern, request, opener);
    admin_routes(pattern, request);
    schedule_routes(pattern, request);
    if (pattern == "/v1/queues/{queue}/push-target" && request.method == server::http::Verb::put) {
        validate_push_target(json::push_target_from_json(routes::json_body(request)));
    }
}

}  // namespace delayq::fuzz
