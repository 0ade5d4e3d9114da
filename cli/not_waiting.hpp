#pragma once

#include <string>

namespace delayq::cli {

// Why cancel or reschedule changed nothing: they act only on waiting messages.
enum class NotWaiting { kNotFound, kInFlight, kDead };

// Throws RuntimeFailure (exit 1) saying so.
[[noreturn]] void throw_not_waiting(const std::string& queue, const std::string& id,
                                    NotWaiting why);

}  // namespace delayq::cli
