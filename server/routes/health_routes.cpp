#include "routes/routes.hpp"

namespace delayq::server::routes {

void add_health_routes(http::Router& router, RouteContext& context) {
    // The process is up: answered on the I/O thread, touching nothing else.
    add_route(router, context, http::Verb::get, "/healthz", Access::open(),
              [](const http::HttpRequest&, const http::Reply& reply) {
                  reply(json_answer(200, {{"status", "ok"}}));
              });
    // Redis answers: a PING through the client's pool (503 redis_unavailable when it does not).
    // Also the mode the operations run in; why scripts, for an open route, is the log's to say.
    add_blocking_route(router, context, http::Verb::get, "/readyz", Access::open(),
                       [ctx = &context](const http::HttpRequest&) {
                           ctx->client.ping();
                           return json_answer(
                               200,
                               {{"status", "ready"},
                                {"engine", std::string(to_string(ctx->client.engine().mode))}});
                       });
}

}  // namespace delayq::server::routes
