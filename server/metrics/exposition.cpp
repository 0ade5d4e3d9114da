#include "metrics/exposition.hpp"

#include <chrono>
#include <delayq/version.hpp>

#include "metrics/push_metrics.hpp"
#include "metrics/text_format.hpp"

namespace delayq::server {

std::string render_metrics(const Scrape& scrape, const RequestMetrics& requests,
                           const ServiceFigures& service) {
    TextFormat out;
    out.family("delayq_build_info", "gauge", "The running delayq's version (always 1).");
    out.sample("delayq_build_info", {{"version", kVersion}}, 1);
    out.family("delayq_redis_up", "gauge", "Whether the last read of Redis for metrics worked.");
    out.sample("delayq_redis_up", {}, scrape.redis_up ? 1 : 0);
    if (scrape.redis_roundtrip) {
        out.family("delayq_redis_roundtrip_seconds", "gauge",
                   "Round trip of a PING to Redis at the last read for metrics (absent while "
                   "Redis does not answer).");
        out.sample("delayq_redis_roundtrip_seconds", {}, scrape.redis_roundtrip->count());
    }
    const auto one = [&out](const char* name, const char* type, const char* help, auto value) {
        out.family(name, type, help);
        out.sample(name, {}, static_cast<double>(value));
    };
    one("delayq_http_connections", "gauge", "Open client connections.", service.connections);
    one("delayq_http_connections_refused_total", "counter",
        "Connections refused at once because every slot was taken.", service.connections_refused);
    one("delayq_http_tls_handshakes_refused_total", "counter",
        "TLS connections closed at once because every handshake slot was taken.",
        service.handshakes_refused);
    one("delayq_http_body_bytes_in_flight", "gauge",
        "Bytes of request bodies being read or handled.", service.body_bytes_in_flight);
    one("delayq_http_bodies_waiting", "gauge", "Requests waiting for room to read their body.",
        service.bodies_waiting);
    one("delayq_http_bodies_timed_out_total", "counter",
        "Requests answered 503 server_busy after waiting for room for their body.",
        service.bodies_timed_out);
    out.family("delayq_http_worker_tasks", "gauge", "Tasks of the worker pool, by state.");
    out.sample("delayq_http_worker_tasks", {{"state", "waiting"}},
               static_cast<double>(service.worker_tasks_waiting));
    out.sample("delayq_http_worker_tasks", {{"state", "running"}},
               static_cast<double>(service.worker_tasks_running));
    out.family("delayq_http_worker_tasks_refused_total", "counter",
               "Requests answered 429 rate_limited, by the bound they met.");
    out.sample("delayq_http_worker_tasks_refused_total", {{"reason", "pool_full"}},
               static_cast<double>(service.worker_refused_pool_full));
    out.sample("delayq_http_worker_tasks_refused_total", {{"reason", "token_share"}},
               static_cast<double>(service.worker_refused_token_share));
    one("delayq_http_long_polls", "gauge", "Long-polls waiting for messages.",
        service.long_polls_waiting);
    one("delayq_http_long_poll_queues", "gauge", "Queues with a long-poll waiter held.",
        service.long_poll_queues);
    one("delayq_http_long_poll_fetches_total", "counter",
        "Fetches the long-polls made, all queues together.", service.long_poll_fetches);
    one("delayq_http_long_polls_refused_total", "counter",
        "Long-polls answered 503 too_many_polls at a cap.", service.long_polls_refused);
    requests.render(out);
    render_queue_metrics(out, scrape.queues);
    if (service.scheduler_lag) {
        out.family("delayq_scheduler_lag_seconds", "gauge",
                   "How late this server's scheduler made its last claim of the queue's "
                   "schedules, after the instant it could (Redis clock).");
        for (const auto& [queue, lag] : *service.scheduler_lag) {
            out.sample("delayq_scheduler_lag_seconds", {{"queue", queue}},
                       std::chrono::duration<double>(lag).count());
        }
    }
    if (service.pusher) render_push_metrics(out, *service.pusher);
    return out.text();
}

}  // namespace delayq::server
