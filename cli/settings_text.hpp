#pragma once

#include <delayq/queue_admin.hpp>
#include <string>

namespace delayq::cli {

// A queue's settings for people, one "  name  value" line each.
std::string settings_text(const QueueSettings& settings);

}  // namespace delayq::cli
