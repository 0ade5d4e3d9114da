#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>

namespace delayq::cli {

// Decides when `consume` ends: after --max messages, after --timeout without messages, or on a
// stop request (a signal, broken output). Handlers call begin() first and end() last.
//
// --max N without taking more than N: a Consumer with concurrency C holds at most C leases, and
// fetches one more each time a handler returns. So a handler may return only while
// C + returns <= N; the others wait in end() until the N-th message has begun and the consumer
// has been stopped (stopped consumers fetch nothing and start no handler). No message beyond N
// is ever fetched, so none has to be handed back. C must be at most N.
class RunControl {
  public:
    using Clock = std::chrono::steady_clock;

    RunControl(std::optional<std::size_t> max, std::size_t concurrency,
               std::optional<std::chrono::milliseconds> idle_timeout);

    // What stops the consumer (Consumer::stop); called once, outside our lock.
    void set_stop(std::function<void()> stop);

    // A handler starts. False when the quota is used up (which the scheme above rules out,
    // except after a lost lease): the caller must hand the message back untouched.
    bool begin();
    // A handler is done; waits while returning could let the consumer fetch past the quota.
    void end();

    // Stops the consumer (idempotent; any thread).
    void request_stop();
    // Blocks until a stop was requested, the quota is reached or the consumer was idle for the
    // timeout; then the consumer has been told to stop.
    void wait();

    std::size_t handled() const;

  private:
    std::optional<std::size_t> max_;
    std::size_t concurrency_;
    std::optional<std::chrono::milliseconds> idle_timeout_;
    std::function<void()> stop_;

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::size_t claimed_ = 0;
    std::size_t returned_ = 0;
    std::size_t active_ = 0;
    Clock::time_point last_activity_ = Clock::now();
    bool stop_requested_ = false;
    bool stopped_ = false;  // stop_ has returned: nothing more is fetched or started
};

}  // namespace delayq::cli
