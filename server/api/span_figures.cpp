#include "api/span_figures.hpp"

#include <algorithm>

#include "json/fields.hpp"

namespace delayq::server {
namespace {

std::uint64_t grew(std::uint64_t before, std::uint64_t after) {
    return after > before ? after - before : 0;
}

// The bound of the first bucket that holds the q-th of the span's deliveries. The buckets are
// cumulative (each counts the deliveries at most its bound late), so a bucket's count over the
// span is its count at the end minus that at the start.
std::optional<Duration> span_quantile(const LatenessHistogram& from, const LatenessHistogram& to,
                                      double q) {
    const auto span_count = [&](std::size_t i) {
        return grew(i < from.buckets.size() ? from.buckets[i].count : 0, to.buckets[i].count);
    };
    if (to.buckets.empty()) return std::nullopt;
    const std::uint64_t total = span_count(to.buckets.size() - 1);
    if (total == 0) return std::nullopt;
    const double rank = q * static_cast<double>(total);
    for (std::size_t i = 0; i < to.buckets.size(); ++i) {
        if (static_cast<double>(span_count(i)) >= rank) return to.buckets[i].le;
    }
    return Duration::max();
}

nlohmann::json bound_json(const std::optional<Duration>& bound) {
    if (!bound || *bound == Duration::max()) return nullptr;
    return bound->count();
}

}  // namespace

std::optional<SpanFigures> span_figures(const QueueStats& from, const QueueStats& to) {
    if (to.now <= from.now) return std::nullopt;
    const double seconds = std::chrono::duration<double>(to.now - from.now).count();
    const auto per_s = [&](std::uint64_t before, std::uint64_t after) {
        return static_cast<double>(grew(before, after)) / seconds;
    };
    const Totals& a = from.totals;
    const Totals& b = to.totals;
    SpanFigures s;
    s.from = from.now;
    s.to = to.now;
    s.sent_per_s = per_s(a.sent, b.sent);
    s.delivered_per_s = per_s(a.delivered, b.delivered);
    s.acked_per_s = per_s(a.acked, b.acked);
    s.retried_per_s = per_s(a.retried, b.retried);
    s.dead_lettered_per_s = per_s(a.dead_lettered, b.dead_lettered);
    s.deliveries = grew(from.lateness.count, to.lateness.count);
    s.lateness_p50 = span_quantile(from.lateness, to.lateness, 0.5);
    s.lateness_p99 = span_quantile(from.lateness, to.lateness, 0.99);
    return s;
}

nlohmann::json span_json(const SpanFigures& span) {
    return {{"from_ms", json::unix_ms(span.from)},
            {"to_ms", json::unix_ms(span.to)},
            {"sent_per_s", span.sent_per_s},
            {"delivered_per_s", span.delivered_per_s},
            {"acked_per_s", span.acked_per_s},
            {"retried_per_s", span.retried_per_s},
            {"dead_lettered_per_s", span.dead_lettered_per_s},
            {"deliveries", span.deliveries},
            {"lateness_p50_le_ms", bound_json(span.lateness_p50)},
            {"lateness_p99_le_ms", bound_json(span.lateness_p99)}};
}

}  // namespace delayq::server
