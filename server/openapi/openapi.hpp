#pragma once

#include <string_view>

namespace delayq::server {

// The OpenAPI 3.1 document of the HTTP API (server/openapi/openapi.yaml, embedded at build
// time), served at GET /v1/openapi.yaml.
std::string_view openapi_yaml();

}  // namespace delayq::server
