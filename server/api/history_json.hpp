#pragma once

#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace delayq::server {

// One snapshot of a queue as the history and the overview show it: {"at_ms" (its instant,
// Redis clock), "scheduled", "ready", "in_flight", "dead", "sent", "delivered", ... every
// total, "lateness": {"sum_ms", "count", "buckets": [{"le_ms" (null for +Inf), "count"}...]}},
// the buckets cumulative as in /metrics (each counts the deliveries at most its bound late).
nlohmann::json history_point_json(const QueueStats& point);

// GET /v1/queues/{queue}/history: {"queue", "recording", "points": [...], "periods": [...],
// "hour": span or null}. The points oldest first, each the queue's stats at its instant.
// "periods" are the span figures (api/span_figures.hpp) between consecutive points, and "hour"
// those from the first point to the last. "recording" says whether this server samples the
// queue now (not for a queue that does not exist, nor beyond --history-max-queues); other
// servers' points are there all the same.
nlohmann::json history_json(const std::string& queue, std::span<const QueueStats> points,
                            bool recording);

}  // namespace delayq::server
