#include <string>
#include <vector>

#include "auth/scope.hpp"
#include "json/fields.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

using json::Json;

constexpr std::string_view kToken = "/v1/token";

// What the caller's token may do, so that a client (the dashboard) shows only the actions it
// may take, and says why the others are off. Never the token or its hash.
http::HttpResponse get_token(RouteContext& ctx, const http::HttpRequest& r) {
    Json scopes = Json::array();
    Json queues = Json::array();
    const auto table = ctx.auth.table();
    if (!table) {
        for (const Scope s : kAllScopes) scopes.push_back(scope_name(s));
        queues.push_back("*");
        return json_answer(
            200, {{"auth", false}, {"name", nullptr}, {"scopes", scopes}, {"queues", queues}});
    }
    // The guard let only a token of the file through.
    const TokenEntry* entry = table->find(r.bearer_token());
    if (entry == nullptr) {
        // Gone from the file since the guard read it (a reload between).
        return http::problem_response(
            Problem{401, "unauthorized", "the token is not one this server accepts"});
    }
    for (const Scope s : kAllScopes) {
        if (entry->has_scope(s)) scopes.push_back(scope_name(s));
    }
    for (const QueuePattern& p : entry->queues) queues.push_back(p.text());
    return json_answer(
        200, {{"auth", true}, {"name", entry->name}, {"scopes", scopes}, {"queues", queues}});
}

}  // namespace

void add_token_routes(http::Router& router, RouteContext& context) {
    add_route(router, context, http::Verb::get, kToken, Access::token(),
              [ctx = &context](const http::HttpRequest& request, const http::Reply& reply) {
                  reply(get_token(*ctx, request));
              });
}

}  // namespace delayq::server::routes
