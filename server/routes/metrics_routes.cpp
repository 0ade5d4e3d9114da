#include "metrics/exposition.hpp"
#include "routes/routes.hpp"

namespace delayq::server::routes {
namespace {

// The Prometheus text format's media type.
constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

// The queues a token's patterns cover, as list_queues shows them: a token for orders* must not
// learn of billing's queues from /metrics either, their counts, their scheduler's lag or their
// pushes. Public
// metrics (--metrics-public) show all.
http::HttpResponse metrics(RouteContext& ctx, const http::HttpRequest& request) {
    std::shared_ptr<const Scrape> scrape = ctx.scrapes.get();
    ServiceFigures figures = ctx.figures();
    if (!ctx.metrics_public && ctx.auth.enabled()) {
        const auto shown = ctx.auth.shows(request.bearer_token());
        const auto hidden = [&shown](const std::string& queue) { return !shown(queue); };
        auto mine = std::make_shared<Scrape>(Scrape{.read_at = scrape->read_at,
                                                    .queues = {},
                                                    .redis_up = scrape->redis_up,
                                                    .redis_roundtrip = scrape->redis_roundtrip});
        for (const QueueSample& q : scrape->queues) {
            if (!hidden(q.queue)) mine->queues.push_back(q);
        }
        scrape = std::move(mine);
        if (figures.scheduler_lag) {
            std::erase_if(*figures.scheduler_lag,
                          [&hidden](const auto& lag) { return hidden(lag.first); });
        }
        if (figures.pusher) {
            std::erase_if(figures.pusher->queues,
                          [&hidden](const auto& queue) { return hidden(queue.first); });
        }
    }
    http::HttpResponse r;
    r.status = 200;
    r.content_type = kTextFormat;
    r.body = render_metrics(*scrape, ctx.requests, figures);
    return r;
}

}  // namespace

void add_metrics_routes(http::Router& router, RouteContext& context) {
    const Access access = context.metrics_public ? Access::open() : Access::any(Scope::kRead);
    add_blocking_route(router, context, http::Verb::get, "/metrics", access,
                       [ctx = &context](const http::HttpRequest& r) { return metrics(*ctx, r); });
}

}  // namespace delayq::server::routes
