#include "json_output.hpp"

#include "json/queue.hpp"
#include "json/text.hpp"

namespace delayq::cli {

std::string to_line(const Json& value) { return json::to_text(value); }

Json stats_line_json(std::string_view queue, const QueueStats& stats) {
    Json out = json::stats_json(stats);
    out["queue"] = std::string(queue);
    out["totals"] = json::totals_json(stats.totals);
    // Renamed to oldest_ready_age_ms in 0.2 (the service's and the metric's name); docs/cli.md
    // promises no silent renames, so the old name stays for this release.
    out["oldest_overdue_ms"] = out["oldest_ready_age_ms"];
    return out;
}

}  // namespace delayq::cli
