#include "metrics/push_metrics.hpp"

#include <cstdint>
#include <string>

namespace delayq::server {
namespace {

constexpr const char* kRequests = "delayq_push_requests_total";
constexpr const char* kLatency = "delayq_push_latency_seconds";
constexpr const char* kInFlight = "delayq_push_in_flight";

}  // namespace

void render_push_metrics(TextFormat& out, const push::PusherStats& stats) {
    out.family(kRequests, "counter",
               "Push requests this server's pusher settled, by what became of the message: "
               "acked (a 2xx), retried (408, 425, 429, 5xx or no answer), dead_lettered (a "
               "refusal, or out of attempts), lost (settled after its lease ended).");
    for (const auto& [queue, s] : stats.queues) {
        const std::pair<const char*, std::uint64_t> outcomes[] = {
            {"acked", s.acked},
            {"retried", s.retried},
            {"dead_lettered", s.dead_lettered},
            {"lost", s.lost}};
        for (const auto& [outcome, n] : outcomes) {
            out.sample(kRequests, {{"queue", queue}, {"outcome", outcome}}, static_cast<double>(n));
        }
    }
    out.family(kLatency, "histogram",
               "From a pushed message's due time (Redis clock) to its request's end.");
    for (const auto& [queue, s] : stats.queues) {
        render_histogram(out, kLatency, {{"queue", queue}}, s.latency, push::kPushLatencyBuckets);
    }
    out.family(kInFlight, "gauge", "Push requests this server's pusher has in flight.");
    for (const auto& [queue, s] : stats.queues) {
        out.sample(kInFlight, {{"queue", queue}}, static_cast<double>(s.in_flight));
    }
    out.family("delayq_pusher_redis_errors_total", "counter",
               "Failed Redis calls of this server's pusher (retried with back-off).");
    out.sample("delayq_pusher_redis_errors_total", {}, static_cast<double>(stats.redis_errors));
}

}  // namespace delayq::server
