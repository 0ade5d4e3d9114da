#pragma once

#include <memory>
#include <mutex>

#include "delayq/waiter.hpp"
#include "queue_core.hpp"
#include "waiter/wake_clock.hpp"
#include "waiter/wake_subscriber.hpp"

namespace delayq::detail {

// A waiter's parts: the wake clock (timer, epoch, callbacks) and the subscription that feeds it.
// Behind the public Waiter, and inside every Consumer.
class WaiterCore {
  public:
    // Throws InvalidArgument for a bad idle_check.
    WaiterCore(std::shared_ptr<QueueCore> core, const WaiterOptions& options);
    ~WaiterCore();
    WaiterCore(const WaiterCore&) = delete;
    WaiterCore& operator=(const WaiterCore&) = delete;

    void start();
    void stop();  // idempotent; ends waits at once, then joins both threads

    WakeClock& clock() { return clock_; }
    WaiterStats stats() const;

  private:
    const std::shared_ptr<QueueCore> core_;
    WakeClock clock_;
    WakeSubscriber subscriber_{*core_, clock_};
    std::mutex mutex_;
    bool started_ = false;
    bool stopped_ = false;
};

}  // namespace delayq::detail
