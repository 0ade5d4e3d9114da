#include "routes/routes.hpp"

namespace delayq::server::routes {

void add_all_routes(http::Router& router, RouteContext& context) {
    add_health_routes(router, context);
    add_message_routes(router, context);
    add_lease_routes(router, context);
    add_admin_routes(router, context);
    add_schedule_routes(router, context);
    add_token_routes(router, context);
    add_push_routes(router, context);
    add_metrics_routes(router, context);
    add_openapi_routes(router, context);
}

}  // namespace delayq::server::routes
