#include "metrics/exposition.hpp"
#include "service/routes.hpp"

namespace delayq::server::service {
namespace {

// The Prometheus text format's media type.
constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

http::HttpResponse metrics(RouteContext& ctx, const http::HttpRequest&) {
    const LongPollStats polls = ctx.long_polls.stats();
    http::HttpResponse r;
    r.status = 200;
    r.content_type = kTextFormat;
    r.body = render_metrics(*ctx.scrapes.get(), ctx.requests, {polls.waiting, polls.fetches});
    return r;
}

}  // namespace

void add_metrics_routes(http::Router& router, RouteContext& context) {
    const Access access = context.metrics_public ? Access::open() : Access::any(Scope::kRead);
    add_blocking_route(router, context, http::Verb::get, "/metrics", access,
                       [ctx = &context](const http::HttpRequest& r) { return metrics(*ctx, r); });
}

}  // namespace delayq::server::service
