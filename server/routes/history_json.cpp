#include "routes/history_json.hpp"

#include "json/fields.hpp"
#include "json/queue.hpp"

namespace delayq::server::routes {
namespace {

// Bucket counts, not cumulative, so that a period's deliveries are one point's minus the one
// before, bucket by bucket.
json::Json lateness_json(const LatenessHistogram& h) {
    json::Json buckets = json::Json::array();
    for (const auto& b : h.buckets) {
        buckets.push_back(
            {{"le_ms", b.le == Duration::max() ? json::Json() : json::Json(b.le.count())},
             {"count", b.count}});
    }
    return {{"sum_ms", h.sum.count()}, {"count", h.count}, {"buckets", std::move(buckets)}};
}

}  // namespace

nlohmann::json history_json(const std::string& queue, std::span<const QueueStats> points,
                            bool recording) {
    json::Json list = json::Json::array();
    for (const QueueStats& p : points) {
        json::Json item = json::totals_json(p.totals);
        item.update(json::counts_json(p));
        item["at_ms"] = json::unix_ms(p.now);
        item["lateness"] = lateness_json(p.lateness);
        list.push_back(std::move(item));
    }
    return {{"queue", queue}, {"recording", recording}, {"points", std::move(list)}};
}

}  // namespace delayq::server::routes
