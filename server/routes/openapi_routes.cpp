#include "openapi/openapi.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {

void add_openapi_routes(http::Router& router, RouteContext& context) {
    // Open: it describes the API, not anything in it. Answered on the I/O thread from the text
    // embedded at build time.
    add_route(router, context, http::Verb::get, "/v1/openapi.yaml", Access::open(),
              [](const http::HttpRequest&, const http::Reply& reply) {
                  http::HttpResponse r;
                  r.content_type = "application/yaml";
                  r.body = std::string(openapi_yaml());
                  reply(std::move(r));
              });
}

}  // namespace delayq::server::routes
