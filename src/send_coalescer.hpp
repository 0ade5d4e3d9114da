#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string_view>

#include "delayq/options.hpp"
#include "delayq/types.hpp"

namespace delayq::detail {

class QueueCore;

// Group commit for single sends: threads that send to the same queue at the same time share one
// script call. The first caller leads and sends everything queued so far; callers arriving while
// that call is under way go together in the next one. An uncontended send is one call, as
// before, so nothing waits for a timer.
class SendCoalescer {
  public:
    explicit SendCoalescer(QueueCore& core) : core_(core) {}

    // Validated by the caller beforehand, so one caller's bad input cannot fail another's send.
    SendResult send(std::string_view payload, const SendOptions& options);

  private:
    struct Waiter;
    void lead(std::unique_lock<std::mutex>& lock);

    QueueCore& core_;
    std::mutex mutex_;
    std::condition_variable done_cv_;
    std::deque<Waiter*> queued_;
    bool leading_ = false;
};

}  // namespace delayq::detail
