#include "metrics/exposition.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

// The Prometheus text format's media type.
constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

// The queues a token's patterns cover, as list_queues shows them: a token for orders* must not
// learn of billing's queues from /metrics either. Public metrics (--metrics-public) show all.
std::shared_ptr<const Scrape> visible(RouteContext& ctx, const http::HttpRequest& r,
                                      std::shared_ptr<const Scrape> scrape) {
    const auto table = ctx.auth.table();
    if (ctx.metrics_public || !table) return scrape;
    const TokenEntry* entry = table->find(r.bearer_token());
    auto mine = std::make_shared<Scrape>(Scrape{.read_at = scrape->read_at,
                                                .queues = {},
                                                .redis_up = scrape->redis_up,
                                                .redis_roundtrip = scrape->redis_roundtrip});
    for (const QueueSample& q : scrape->queues) {
        if (entry != nullptr && entry->covers(q.queue)) mine->queues.push_back(q);
    }
    return mine;
}

http::HttpResponse metrics(RouteContext& ctx, const http::HttpRequest& request) {
    http::HttpResponse r;
    r.status = 200;
    r.content_type = kTextFormat;
    r.body = render_metrics(*visible(ctx, request, ctx.scrapes.get()), ctx.requests, ctx.figures());
    return r;
}

}  // namespace

void add_metrics_routes(http::Router& router, RouteContext& context) {
    const Access access = context.metrics_public ? Access::open() : Access::any(Scope::kRead);
    add_blocking_route(router, context, http::Verb::get, "/metrics", access,
                       [ctx = &context](const http::HttpRequest& r) { return metrics(*ctx, r); });
}

}  // namespace delayq::server::routes
