#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "runtime/history.hpp"

namespace delayq::server::routes {

// GET /v1/queues/{queue}/history: {"queue", "recording", "points": [{"at_ms", "sent",
// "delivered", ... every total}...]}, oldest first; "recording" says whether the server records
// the queue now (not for a queue that does not exist, nor beyond --history-max-queues).
nlohmann::json history_json(const std::string& queue, std::span<const runtime::HistoryPoint> points,
                            bool recording);

}  // namespace delayq::server::routes
