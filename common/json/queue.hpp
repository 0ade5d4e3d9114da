#pragma once

#include <delayq/queue_admin.hpp>
#include <delayq/types.hpp>
#include <string>

#include "json/fields.hpp"

// The JSON shapes of a queue (docs/json.md): its counts, stats, lifetime totals and settings,
// and a delete's result. `delayq stats --json`, `delayq queue info --json` and the service's
// queue routes all write these, so that they cannot disagree on a field.
namespace delayq::json {

// {"scheduled", "ready", "in_flight", "dead"}
Json counts_json(const QueueStats& stats);

// counts_json and {"total", "now_ms", "next_due_ms", "oldest_due_ms" (null when none),
// "oldest_ready_age_ms"}
Json stats_json(const QueueStats& stats);

// {"sent", "delivered", "acked", "retried", "dead_lettered", "expired", "cancelled",
// "released", "requeued", "purged", "dead_trimmed", "orphans_removed", "schedule_fired",
// "schedule_missed", "schedule_skipped"}
Json totals_json(const Totals& totals);

// {"paused", "max_attempts", "backoff": {"initial_ms", "max_ms", "multiplier", "jitter"},
// "dead_max_count", "dead_max_age_ms", "layout"}
Json settings_json(const QueueSettings& settings);

// {"queue", "stats": stats_json, "totals": totals_json, "settings": settings_json}
Json queue_json(const std::string& queue, const QueueStats& stats, const QueueSettings& settings);

// What falls due when (QueueAdmin::timeline): {"queue", "now_ms", "bucket_ms", "ready",
// "buckets": [{"from_ms", "to_ms", "count"}...], "later"}
Json timeline_json(const std::string& queue, const Timeline& timeline);

// {"status": "deleted" | "in_flight", "pending", "in_flight", "dead"}
Json delete_result_json(const DeleteResult& result);

}  // namespace delayq::json
