#include "api/history_json.hpp"

#include "api/span_figures.hpp"
#include "json/fields.hpp"
#include "json/queue.hpp"

namespace delayq::server {
namespace {

json::Json lateness_json(const LatenessHistogram& h) {
    json::Json buckets = json::Json::array();
    for (const auto& b : h.buckets) {
        buckets.push_back(
            {{"le_ms", b.le == Duration::max() ? json::Json() : json::Json(b.le.count())},
             {"count", b.count}});
    }
    return {{"sum_ms", h.sum.count()}, {"count", h.count}, {"buckets", std::move(buckets)}};
}

json::Json optional_span_json(const QueueStats& from, const QueueStats& to) {
    const auto span = span_figures(from, to);
    return span ? span_json(*span) : json::Json();
}

}  // namespace

nlohmann::json history_point_json(const QueueStats& point) {
    json::Json item = json::totals_json(point.totals);
    item.update(json::counts_json(point));
    item["at_ms"] = json::unix_ms(point.now);
    item["lateness"] = lateness_json(point.lateness);
    return item;
}

nlohmann::json history_json(const std::string& queue, std::span<const QueueStats> points,
                            bool recording) {
    json::Json list = json::Json::array();
    json::Json periods = json::Json::array();
    for (std::size_t i = 0; i < points.size(); ++i) {
        list.push_back(history_point_json(points[i]));
        if (i == 0) continue;
        if (const auto span = span_figures(points[i - 1], points[i])) {
            periods.push_back(span_json(*span));
        }
    }
    return {{"queue", queue},
            {"recording", recording},
            {"points", std::move(list)},
            {"periods", std::move(periods)},
            {"hour",
             points.empty() ? json::Json() : optional_span_json(points.front(), points.back())}};
}

}  // namespace delayq::server
