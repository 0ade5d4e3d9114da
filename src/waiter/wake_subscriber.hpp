#pragma once

#include <atomic>
#include <cstdint>

#include "loop.hpp"
#include "queue_core.hpp"
#include "waiter/wake_clock.hpp"

namespace delayq::detail {

// Listens on the queue's wake channel (SSUBSCRIBE dq:{q}:wake), where producers publish the due
// time of a message that became due earlier than everything waiting, and notes those times on
// the clock. Before subscribing it reads the Redis clock (TIME) to aim the clock; after each
// (re)subscription it wakes the clock once, since signals sent while it was not listening are
// gone. A broken connection is retried with back-off.
class WakeSubscriber : public Loop {
  public:
    WakeSubscriber(QueueCore& core, WakeClock& clock) : core_(core), clock_(clock) {}

    // Takes effect within kStopCheck (a quiet subscription only looks that often).
    void request_stop() override { stop_.request(); }

    std::uint64_t subscriptions() const { return subscriptions_.load(); }
    std::uint64_t signals() const { return signals_.load(); }
    std::uint64_t redis_errors() const { return redis_errors_.load(); }

  private:
    void run() override;
    const char* thread_name() const override { return "dq-wake-sub"; }
    void listen();  // one connection's life; throws on a Redis failure

    QueueCore& core_;
    WakeClock& clock_;
    StopSignal stop_;
    int failures_ = 0;  // in a row; a subscription that got through starts the back-off afresh
    std::atomic<std::uint64_t> subscriptions_{0};
    std::atomic<std::uint64_t> signals_{0};
    std::atomic<std::uint64_t> redis_errors_{0};
};

}  // namespace delayq::detail
