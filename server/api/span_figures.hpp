#pragma once

#include <cstdint>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>

namespace delayq::server {

// What a queue did between two of its snapshots (two history points, or the oldest point of the
// hour and now): rates per second and lateness quantiles, from the differences of its totals
// and lateness buckets, which only grow. The one place these are computed: the overview's hour,
// the history's periods and the queue page's hour all come from here.
struct SpanFigures {
    TimePoint from;
    TimePoint to;
    double sent_per_s = 0;
    double delivered_per_s = 0;
    double acked_per_s = 0;
    double retried_per_s = 0;
    double dead_lettered_per_s = 0;
    std::uint64_t deliveries = 0;  // whose lateness was counted in the span
    // The upper bound of the lateness bucket holding the span's p50 / p99 delivery: "at most
    // this late". Duration::max() past the last finite bound; nullopt without deliveries.
    std::optional<Duration> lateness_p50;
    std::optional<Duration> lateness_p99;
};

// Nullopt unless `to` is later than `from` (Redis clock). A total that went down (the queue
// was deleted and made again in between) counts as nothing done.
std::optional<SpanFigures> span_figures(const QueueStats& from, const QueueStats& to);

// {"from_ms", "to_ms", "sent_per_s", "delivered_per_s", "acked_per_s", "retried_per_s",
// "dead_lettered_per_s", "deliveries", "lateness_p50_le_ms", "lateness_p99_le_ms"}: a
// quantile is null without deliveries, or past the last bound (as a bucket's le_ms is).
nlohmann::json span_json(const SpanFigures& span);

}  // namespace delayq::server
