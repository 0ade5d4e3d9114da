#include "service/routes.hpp"

namespace delayq::server::service {

void add_all_routes(http::Router& router, RouteContext& context) {
    add_health_routes(router, context);
    add_message_routes(router, context);
}

}  // namespace delayq::server::service
