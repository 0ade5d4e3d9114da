#pragma once

#include "http/router.hpp"
#include "routes/route_context.hpp"

// The route groups, each in a file of its own that registers its routes (route_context.hpp
// says how). Adding a group is its file, its line here and its line in all_routes.cpp.
namespace delayq::server::routes {

// GET /healthz, GET /readyz
void add_health_routes(http::Router& router, RouteContext& context);
// POST /v1/queues/{queue}/messages, .../messages/batch, GET|DELETE .../messages/{id},
// POST .../messages/{id}/reschedule
void add_message_routes(http::Router& router, RouteContext& context);
// POST /v1/queues/{queue}/leases (long-poll), .../ack, .../extend, .../release, .../nack,
// .../reject
void add_lease_routes(http::Router& router, RouteContext& context);
// GET /v1/queues, GET|PATCH|DELETE /v1/queues/{queue}, GET .../messages (a page),
// POST .../dead/requeue, .../dead/purge, GET .../history, GET .../timeline, GET /v1/redis,
// GET /v1/overview
void add_admin_routes(http::Router& router, RouteContext& context);
// GET|POST /v1/queues/{queue}/schedules, GET|PUT|DELETE .../schedules/{name},
// POST .../{name}/trigger, .../pause, .../resume, GET .../{name}/next
void add_schedule_routes(http::Router& router, RouteContext& context);
// GET|PUT|DELETE /v1/queues/{queue}/push-target
void add_push_routes(http::Router& router, RouteContext& context);
// GET /v1/token: what the caller's token may do
void add_token_routes(http::Router& router, RouteContext& context);
// GET /metrics
void add_metrics_routes(http::Router& router, RouteContext& context);
// GET /v1/openapi.yaml
void add_openapi_routes(http::Router& router, RouteContext& context);

// GET /, /ui (302 to /ui/), GET /ui/, /ui/{file}: the dashboard's files (server/ui/). Not one
// of add_all_routes' API groups: the service adds it unless --no-ui, and the OpenAPI document
// leaves it out.
void add_ui_routes(http::Router& router, RouteContext& context);

// Every group of the API.
void add_all_routes(http::Router& router, RouteContext& context);

}  // namespace delayq::server::routes
