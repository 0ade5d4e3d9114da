#pragma once

#include <delayq/queue_admin.hpp>
#include <string>
#include <string_view>

#include "json/fields.hpp"

// The command line's JSON output (docs/cli.md, JSON output) over the shapes every front end
// shares (common/json, docs/json.md).
namespace delayq::cli {

using Json = json::Json;

// One line of JSON (json::to_text: bytes that are not UTF-8 are repaired, never refused).
std::string to_line(const Json& value);

// A Stats object of `stats --json` and `queues --json`: "queue", the shared stats fields,
// "totals", and the field's former name `oldest_overdue_ms` until it is removed.
Json stats_line_json(std::string_view queue, const QueueStats& stats);

}  // namespace delayq::cli
