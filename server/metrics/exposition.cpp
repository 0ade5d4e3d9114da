#include "metrics/exposition.hpp"

#include <chrono>
#include <delayq/version.hpp>

#include "metrics/text_format.hpp"

namespace delayq::server {

std::string render_metrics(const Scrape& scrape, const RequestMetrics& requests,
                           const ServiceFigures& service) {
    TextFormat out;
    out.family("delayq_build_info", "gauge", "The running delayq's version (always 1).");
    out.sample("delayq_build_info", {{"version", kVersion}}, 1);
    out.family("delayq_redis_up", "gauge", "Whether the last read of Redis for metrics worked.");
    out.sample("delayq_redis_up", {}, scrape.redis_up ? 1 : 0);
    out.family("delayq_redis_roundtrip_seconds", "gauge",
               "Round trip of a PING to Redis at the last read for metrics.");
    out.sample("delayq_redis_roundtrip_seconds", {},
               std::chrono::duration<double>(scrape.redis_roundtrip).count());
    out.family("delayq_http_long_polls", "gauge", "Long-polls waiting for messages.");
    out.sample("delayq_http_long_polls", {}, static_cast<double>(service.long_polls_waiting));
    out.family("delayq_http_long_poll_fetches_total", "counter",
               "Fetches the long-polls made, all queues together.");
    out.sample("delayq_http_long_poll_fetches_total", {},
               static_cast<double>(service.long_poll_fetches));
    requests.render(out);
    render_queue_metrics(out, scrape.queues);
    return out.text();
}

}  // namespace delayq::server
