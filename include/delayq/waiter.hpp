#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "delayq/leases.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class WaiterCore;
}

struct WaiterOptions {
    // The longest the waiter goes without firing: a safety net for lost wake signals
    // (resubscribing after a broken connection fires too). Callers that fetch when it fires
    // cost an idle queue one fetch per idle_check each.
    Duration idle_check = std::chrono::seconds(5);
};

struct WaiterStats {
    std::uint64_t fired = 0;          // times it told its callers that something may be due
    std::uint64_t signals = 0;        // wake signals received from producers
    std::uint64_t subscriptions = 0;  // (re)subscriptions to the wake channel
    std::uint64_t redis_errors = 0;   // failed subscriptions (retried with back-off)
};

// Tells any number of callers when something may be due in one queue, without polling Redis:
// one waiter per queue serves many waiting callers (the Consumer has one; the HTTP service's
// long-polls share one). A waiter has no thread or connection of its own: all the waiters of a
// Client share one timer thread and one subscriber connection (made with the first), so a
// waiter costs a channel subscription and some memory, and stops at once. It fires at the queue's
// next due time by the Redis clock (learned from the fetches its callers report and from producers'
// wake signals, SSUBSCRIBE dq:{q}:wake), after each (re)subscription, and at the latest idle_check
// after it last fired. Firing means "fetch now"; it promises nothing is there, since another
// consumer may have taken it. Thread-safe.
//
// A caller that fetches and then waits must not miss a firing between the two: read epoch()
// before fetching and pass it to wait(), or subscribe before fetching.
class Waiter {
  public:
    // Throws InvalidArgument for bad options. Connects nothing until start().
    explicit Waiter(const Leases& leases, WaiterOptions options = {});
    // Stops.
    ~Waiter();
    Waiter(const Waiter&) = delete;
    Waiter& operator=(const Waiter&) = delete;

    // Registers with the Client's shared timer and subscriber (starting them with the first
    // waiter). Redis failures are logged, counted (stats()) and retried, never thrown.
    void start();
    // Ends every wait (they return false) and the subscription; no callback runs after it
    // returns. A stopped waiter does not start again.
    void stop();

    // A fetch's reply, right after it returned: its Redis time aims the timer and its next due
    // time (FetchResult::next) is noted.
    void note_fetch(const FetchResult& result);
    // Something falls due at `due` (Redis clock): the waiter fires then at the latest. The
    // earliest time noted is kept until it fires.
    void note_due(TimePoint due);

    // Grows by one each time the waiter fires.
    std::uint64_t epoch() const;
    // Blocks until the waiter fired after epoch `seen` (true), the deadline passed or the waiter
    // stopped (false).
    bool wait(std::uint64_t seen, std::chrono::steady_clock::time_point deadline);
    // wait(epoch(), deadline): for a caller that has not fetched since it last woke.
    bool wait_until_due(std::chrono::steady_clock::time_point deadline);

    // Keeps a callback registered; destroying it (or reset()) unregisters it, after which the
    // callback is not running (unless reset from inside it) and is not called again. It may
    // outlive its waiter.
    class Subscription {
      public:
        Subscription() = default;
        ~Subscription();
        Subscription(Subscription&& other) noexcept;
        Subscription& operator=(Subscription&& other) noexcept;
        Subscription(const Subscription&) = delete;
        Subscription& operator=(const Subscription&) = delete;
        void reset();

      private:
        friend class Waiter;
        Subscription(std::weak_ptr<detail::WaiterCore> core, std::uint64_t id);
        std::weak_ptr<detail::WaiterCore> core_;
        std::uint64_t id_ = 0;
    };
    // `callback` runs at each firing, on the waiter's timer thread, one call at a time: it must
    // be quick (an event loop posts the work to itself). An exception it throws is logged.
    [[nodiscard]] Subscription subscribe(std::function<void()> callback);

    WaiterStats stats() const;

  private:
    std::shared_ptr<detail::WaiterCore> core_;
};

}  // namespace delayq
