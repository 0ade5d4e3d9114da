#pragma once

#include <string>

namespace delayq::cli {

// Why cancel or reschedule changed nothing: they act only on waiting messages.
enum class NotWaiting { kNotFound, kInFlight, kDead };

// Throws RuntimeFailure (exit 1) saying so.
[[noreturn]] void throw_not_waiting(const std::string& queue, const std::string& id,
                                    NotWaiting why);

// The same for what Queue::cancel or Queue::reschedule answered (CancelResult,
// RescheduleStatus): their kNotFound, kInFlight and kDead.
template <typename Status>
[[noreturn]] void throw_not_waiting(const std::string& queue, const std::string& id, Status s) {
    throw_not_waiting(queue, id,
                      s == Status::kNotFound   ? NotWaiting::kNotFound
                      : s == Status::kInFlight ? NotWaiting::kInFlight
                                               : NotWaiting::kDead);
}

}  // namespace delayq::cli
