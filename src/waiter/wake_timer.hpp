#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "loop.hpp"

namespace delayq::detail {

// One thread that calls each scheduled target at its time: every waiter of a Client shares it,
// so a thousand waiters cost one thread, not a thousand. Targets are called one at a time and
// must be quick. Thread-safe.
class WakeTimer : public Loop {
  public:
    using Steady = std::chrono::steady_clock;

    // What the timer calls. on_time() must not throw; it may schedule its target again.
    class Target {
      public:
        virtual void on_time() noexcept = 0;

      protected:
        Target() = default;
        ~Target() = default;
        Target(const Target&) = default;
        Target& operator=(const Target&) = default;
    };

    void request_stop() override;

    // Calls `target` at `when` (or at once when it has passed), replacing its earlier time.
    void schedule(Target& target, Steady::time_point when);
    // After it returns, `target` is not called again and its call is not under way (unless
    // this is called from inside that call).
    void cancel(Target& target);

    std::size_t scheduled() const;

  private:
    using Queue = std::multimap<Steady::time_point, Target*>;

    void run() override;
    const char* thread_name() const override { return "dq-wake-timer"; }

    mutable std::mutex mutex_;
    std::condition_variable cv_;       // an earlier time, stop
    std::condition_variable done_cv_;  // a call ended
    bool stopped_ = false;
    Queue queue_;
    std::unordered_map<Target*, Queue::iterator> where_;
    Target* calling_ = nullptr;
    std::thread::id thread_id_;
};

}  // namespace delayq::detail
