#pragma once

#include <map>
#include <optional>
#include <string>

#include "metrics/request_metrics.hpp"
#include "metrics/scrape_cache.hpp"
#include "push/pusher.hpp"

namespace delayq::server {

// The service's own figures beside the queues': what its bounds hold and what they refused
// (docs/security.md, The HTTP service against hostile clients).
struct ServiceFigures {
    std::size_t connections = 0;
    std::uint64_t connections_refused = 0;  // at --max-connections
    std::uint64_t handshakes_refused = 0;   // at --max-tls-handshakes
    std::size_t body_bytes_in_flight = 0;   // of --max-body-bytes-in-flight
    std::size_t bodies_waiting = 0;
    std::uint64_t bodies_timed_out = 0;  // answered 503 server_busy
    std::size_t worker_tasks_waiting = 0;
    std::size_t worker_tasks_running = 0;
    std::uint64_t worker_refused_pool_full = 0;    // 429: --worker-queue
    std::uint64_t worker_refused_token_share = 0;  // 429: --max-work-per-token
    std::size_t long_polls_waiting = 0;
    std::size_t long_poll_queues = 0;
    std::uint64_t long_poll_fetches = 0;
    std::uint64_t long_polls_refused = 0;  // 503 too_many_polls
    // Per queue the service's scheduler follows, how late its last claim was; none when the
    // service runs no scheduler (--no-schedulers). Bounded by SchedulerOptions::max_queues.
    std::optional<std::map<std::string, Duration>> scheduler_lag{};
    // The service's pusher; none when it runs none (--no-pushers).
    std::optional<push::PusherStats> pusher{};
};

// The whole text of GET /metrics: build info, Redis reachability and round trip, the service's
// figures, the HTTP request durations, every queue's families and the scheduler's lag.
std::string render_metrics(const Scrape& scrape, const RequestMetrics& requests,
                           const ServiceFigures& service);

}  // namespace delayq::server
