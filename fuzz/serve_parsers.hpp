#pragma once

#include <string_view>

#include "api/leases_json.hpp"
#include "http/message.hpp"

// What each route of `delayq serve` makes of a request before its library call: the same
// parsers, in the same order, as the route's handler (server/routes/*_routes.cpp), stopping
// where the handler would call the library. A handler runs its parse and its call in one
// function, so this table is the fuzz target's view of them; a route added there without a line
// here is fuzzed up to its guard only.
namespace delayq::fuzz {

// Throws what the route's parsers throw (InvalidArgument: the route's 400).
void parse_route_request(std::string_view pattern, const server::http::HttpRequest& request,
                         const server::LeaseOpener& opener);

}  // namespace delayq::fuzz
