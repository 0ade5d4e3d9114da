#pragma once

#include <cstddef>
#include <delayq/options.hpp>
#include <delayq/queue_admin.hpp>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

// The JSON of the operators' routes (docs/http.md, Queues): listing and inspecting queues,
// paging through messages, dead-letter requeue and purge, settings, pause, delete. Parsing
// throws InvalidArgument (a 400, nothing written) naming the field; unknown fields are refused.
namespace delayq::server {

// A query string's parameters, decoded, in order.
using QueryParams = std::vector<std::pair<std::string, std::string>>;

// GET /v1/queues: {"queues": [{"queue", "scheduled", "ready", "in_flight", "dead"}...]}
struct QueueCounts {
    std::string queue;
    QueueStats stats;
};
nlohmann::json queue_list_json(std::span<const QueueCounts> queues);

// A query parameter that is a whole number from `min` to `max`; InvalidArgument naming it.
std::size_t parse_query_count(const std::string& name, const std::string& value, std::size_t min,
                              std::size_t max);
// limit=1..kMaxBatch and cursor= of a paged listing into `page`: false when `key` is neither.
bool parse_page_param(const std::string& key, const std::string& value, PageRequest& page);

// GET /v1/queues/{queue}/messages?state=scheduled|ready|in_flight|dead&limit=1..kMaxBatch&cursor=
struct ListQuery {
    State state = State::kReady;
    PageRequest page;
};
ListQuery parse_list_query(const QueryParams& params);
// {"messages": [...], "next_cursor": "..." or null on the last page}; each message as GET
// .../messages/{id} shows it.
nlohmann::json message_page_json(const MessagePage& page);

// GET /v1/queues/{queue}/timeline?bucket=DURATION&buckets=1..kMaxTimelineBuckets (defaults 1m
// and 60).
struct TimelineQuery {
    Duration bucket = std::chrono::minutes(1);
    std::size_t buckets = 60;
};
TimelineQuery parse_timeline_query(const QueryParams& params);
// The answer is json::timeline_json (common/json/queue.hpp), which `delayq queue timeline
// --json` writes too.

// A queue of GET /v1/overview, whose answer is {"truncated", "queues": [...]}: {"queue",
// "at_ms" (when it was read, Redis clock), "scheduled", "ready", "in_flight", "dead",
// "oldest_ready_age_ms" (null when none is ready), "sent", "delivered", "acked" (totals),
// "recording" (whether this server samples its history), "hour": the span figures
// (api/span_figures.hpp) from `hour_start`, its history's oldest point within the last hour,
// to now; null before there is one}.
nlohmann::json overview_queue_json(const std::string& queue, const QueueStats& now,
                                   const std::optional<QueueStats>& hour_start, bool recording);

// GET /v1/redis: {"engine": {"mode", "reason"}, "nodes": [{"address", "version",
// "used_memory", "maxmemory", "maxmemory_policy", "evicts", "connected_clients"}...]}
nlohmann::json redis_json(const EngineStatus& engine, std::span<const RedisNodeInfo> nodes);

// POST .../dead/requeue and .../dead/purge: {"ids": [1 to kMaxBatch ids]} or {"all": true}.
DeadLetterSelector parse_dead_selector(const nlohmann::json& body);

// PATCH /v1/queues/{queue}: any of "max_attempts", "backoff": {"initial", "max", "multiplier",
// "jitter"} (each optional), "dead_max_count", "dead_max_age", "paused". At least one.
struct QueuePatch {
    std::optional<int> max_attempts;
    std::optional<Duration> backoff_initial;
    std::optional<Duration> backoff_max;
    std::optional<double> backoff_multiplier;
    std::optional<double> backoff_jitter;
    std::optional<std::size_t> dead_max_count;
    std::optional<Duration> dead_max_age;
    std::optional<bool> paused;

    bool changes_settings() const;
    // The library's update: the backoff fields given, over the queue's current backoff.
    SettingsUpdate update(const QueueSettings& current) const;
};
QueuePatch parse_queue_patch(const nlohmann::json& body);

// DELETE /v1/queues/{queue}?force=true|false (default false).
bool parse_force(const QueryParams& params);
}  // namespace delayq::server
