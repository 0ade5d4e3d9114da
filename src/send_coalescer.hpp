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
// script call. A caller that finds fewer than kMaxLeaders calls under way leads: it sends
// everything queued so far. Callers arriving meanwhile queue; when a call ends, the oldest of
// them is promoted to lead the next. Two calls in flight keep Redis busy while the client
// handles a reply. An uncontended send is one call, as before, so nothing waits for a timer.
class SendCoalescer {
  public:
    explicit SendCoalescer(QueueCore& core) : core_(core) {}

    // Validated by the caller beforehand, so one caller's bad input cannot fail another's send.
    SendResult send(std::string_view payload, const SendOptions& options);

  private:
    struct Waiter;
    void lead(std::unique_lock<std::mutex>& lock);

    static constexpr int kMaxLeaders = 2;

    QueueCore& core_;
    std::mutex mutex_;
    std::deque<Waiter*> queued_;
    int leaders_ = 0;  // calls under way, and callers promoted to make one
};

}  // namespace delayq::detail
