#include "json/queue.hpp"

namespace delayq::json {

Json counts_json(const QueueStats& s) {
    return {{"scheduled", s.scheduled},
            {"ready", s.ready},
            {"in_flight", s.in_flight},
            {"dead", s.dead}};
}

Json stats_json(const QueueStats& s) {
    Json out = counts_json(s);
    out["total"] = s.scheduled + s.ready + s.in_flight + s.dead;
    out["now_ms"] = unix_ms(s.now);
    out["next_due_ms"] = optional_ms(s.next_due);
    out["oldest_due_ms"] = optional_ms(s.oldest_due);
    out["oldest_ready_age_ms"] = s.oldest_ready_age.count();
    return out;
}

Json totals_json(const Totals& t) {
    return {{"sent", t.sent},
            {"delivered", t.delivered},
            {"acked", t.acked},
            {"retried", t.retried},
            {"dead_lettered", t.dead_lettered},
            {"expired", t.expired},
            {"cancelled", t.cancelled},
            {"released", t.released},
            {"requeued", t.requeued},
            {"purged", t.purged},
            {"dead_trimmed", t.dead_trimmed},
            {"orphans_removed", t.orphans_removed},
            {"schedule_fired", t.schedule_fired},
            {"schedule_missed", t.schedule_missed},
            {"schedule_skipped", t.schedule_skipped}};
}

Json settings_json(const QueueSettings& s) {
    return {{"paused", s.paused},
            {"max_attempts", s.max_attempts},
            {"backoff",
             {{"initial_ms", s.backoff.initial.count()},
              {"max_ms", s.backoff.max.count()},
              {"multiplier", s.backoff.multiplier},
              {"jitter", s.backoff.jitter}}},
            {"dead_max_count", s.dead_max_count},
            {"dead_max_age_ms", s.dead_max_age.count()},
            {"layout", s.layout}};
}

Json queue_json(const std::string& queue, const QueueStats& stats, const QueueSettings& settings) {
    return {{"queue", queue},
            {"stats", stats_json(stats)},
            {"totals", totals_json(stats.totals)},
            {"settings", settings_json(settings)}};
}

Json timeline_json(const std::string& queue, const Timeline& timeline) {
    const std::int64_t now = timeline.now.time_since_epoch().count();
    const std::int64_t width = timeline.bucket.count();
    Json buckets = Json::array();
    for (std::size_t i = 0; i < timeline.counts.size(); ++i) {
        const auto from = now + static_cast<std::int64_t>(i) * width;
        buckets.push_back(
            {{"from_ms", from}, {"to_ms", from + width}, {"count", timeline.counts[i]}});
    }
    return {{"queue", queue},          {"now_ms", now},      {"bucket_ms", width},
            {"ready", timeline.ready}, {"buckets", buckets}, {"later", timeline.later}};
}

Json delete_result_json(const DeleteResult& r) {
    return {{"status", r.status == DeleteStatus::kDeleted ? "deleted" : "in_flight"},
            {"pending", r.pending},
            {"in_flight", r.in_flight},
            {"dead", r.dead}};
}

}  // namespace delayq::json
