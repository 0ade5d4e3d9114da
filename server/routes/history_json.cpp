#include "routes/history_json.hpp"

#include "json/fields.hpp"
#include "json/queue.hpp"

namespace delayq::server::routes {

nlohmann::json history_json(const std::string& queue, std::span<const runtime::HistoryPoint> points,
                            bool recording) {
    json::Json list = json::Json::array();
    for (const auto& p : points) {
        json::Json item = json::totals_json(p.totals);
        item["at_ms"] = json::unix_ms(p.at);
        list.push_back(std::move(item));
    }
    return {{"queue", queue}, {"recording", recording}, {"points", std::move(list)}};
}

}  // namespace delayq::server::routes
