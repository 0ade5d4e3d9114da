#pragma once

#include <delayq/queue_admin.hpp>
#include <string>

namespace delayq::cli {

// A queue's settings for people, one "  name  value" line each.
std::string settings_text(const QueueSettings& settings);

// A setting's number as people write it: 2, 0.2, 1e+09.
std::string number_text(double value);

}  // namespace delayq::cli
