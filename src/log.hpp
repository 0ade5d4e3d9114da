#pragma once

#include <spdlog/logger.h>

namespace delayq::detail {

// The library's logger, named "delayq" (spdlog::get("delayq") reconfigures it). Created on first
// use with a stderr sink.
spdlog::logger& log();

}  // namespace delayq::detail
