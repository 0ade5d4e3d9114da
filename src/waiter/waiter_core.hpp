#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "delayq/waiter.hpp"
#include "queue_core.hpp"
#include "waiter/wake_clock.hpp"
#include "waiter/wake_subscriber.hpp"

namespace delayq::detail {

class WakeHub;

// A waiter: its queue's wake clock (epoch, callbacks), registered from start() to stop() on the
// Client's WakeHub, whose timer fires the clock and whose subscriber feeds it the queue's wake
// signals. It has no thread or connection of its own. Behind the public Waiter, and inside
// every Consumer.
class WaiterCore {
  public:
    // Throws InvalidArgument for a bad idle_check.
    WaiterCore(std::shared_ptr<QueueCore> core, const WaiterOptions& options);
    ~WaiterCore();
    WaiterCore(const WaiterCore&) = delete;
    WaiterCore& operator=(const WaiterCore&) = delete;

    void start();
    // Idempotent; ends waits at once and unregisters. Quick: no thread to join, no connection
    // to close, so any number of waiters stop in one step.
    void stop();

    WakeClock& clock() { return clock_; }
    WaiterStats stats() const;

  private:
    const std::shared_ptr<QueueCore> core_;
    const std::string channel_;
    WakeClock clock_;
    WakeListener listener_{clock_};
    WakeHub* hub_ = nullptr;  // from start() on
    std::mutex mutex_;
    bool started_ = false;
    bool stopped_ = false;
};

}  // namespace delayq::detail
