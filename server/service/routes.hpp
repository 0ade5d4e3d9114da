#pragma once

#include "http/router.hpp"
#include "service/route_context.hpp"

// The route groups, each in a file of its own that registers its routes (route_context.hpp
// says how). Adding a group is its file, its line here and its line in all_routes.cpp.
namespace delayq::server::service {

// GET /healthz, GET /readyz
void add_health_routes(http::Router& router, RouteContext& context);
// POST /v1/queues/{queue}/messages, .../messages/batch, GET|DELETE .../messages/{id},
// POST .../messages/{id}/reschedule
void add_message_routes(http::Router& router, RouteContext& context);

// Every group.
void add_all_routes(http::Router& router, RouteContext& context);

}  // namespace delayq::server::service
