#pragma once

#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace delayq::server::routes {

// GET /v1/queues/{queue}/history: {"queue", "recording", "points": [{"at_ms", "scheduled",
// "ready", "in_flight", "dead", "sent", "delivered", ... every total, "lateness": {"sum_ms",
// "count", "buckets": [{"le_ms" (null for +Inf), "count"}...]}}...]}, oldest first; each point
// the queue's stats at its instant (Redis clock). "recording" says whether this server samples
// the queue now (not for a queue that does not exist, nor beyond --history-max-queues); other
// servers' points are there all the same.
nlohmann::json history_json(const std::string& queue, std::span<const QueueStats> points,
                            bool recording);

}  // namespace delayq::server::routes
