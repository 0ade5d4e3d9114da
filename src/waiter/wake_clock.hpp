#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "delayq/leases.hpp"
#include "waiter/wake_timer.hpp"

namespace delayq::detail {

// Tells waiting callers when something may be due in a queue: it fires at the queue's next due
// time (learned from fetch replies and wake signals, both on the Redis clock, aimed at the local
// steady clock by a measured offset), when told that anything may be due (after subscribing to
// the wake channel), and at the latest idle_check after it last fired. Each firing bumps the
// epoch, wakes blocked callers and runs the callbacks. It has no thread of its own: the Client's
// WakeTimer calls it at its next firing time, and that thread is the only one that runs its
// callbacks. Thread-safe.
class WakeClock final : public WakeTimer::Target {
  public:
    using Steady = std::chrono::steady_clock;
    // The Redis clock to the microsecond, as TIME and fetch tell it: the clock aims at a due
    // instant (a whole millisecond), not at the millisecond the reply was read in.
    using PreciseTime = std::chrono::sys_time<std::chrono::microseconds>;

    explicit WakeClock(Duration idle_check);
    ~WakeClock();
    WakeClock(const WakeClock&) = delete;
    WakeClock& operator=(const WakeClock&) = delete;

    // Fires from now on, on `timer`'s thread. Once at most; not after stop().
    void start(WakeTimer& timer);
    // Fires no more; blocked callers return at once, and later waits too. After it returns no
    // callback is running (unless it is called from one).
    void stop();

    // The Redis clock read `redis_now` at local time `received` or before: the offset then errs
    // late by the reply's transit, never early.
    void set_offset(PreciseTime redis_now, Steady::time_point received);
    // Something falls due at `due` (Redis clock). The earliest of those noted is kept until it
    // fires; without an offset yet it fires at once.
    void note_due(TimePoint due);
    // A fetch reply received at `received`: its Redis time aims the clock, its next due time
    // (if any) is noted.
    void note_fetch(const FetchResult& result, Steady::time_point received);
    // Anything may be due (signals may have been missed): fire at once.
    void wake_now();

    std::uint64_t epoch() const;
    // Blocks until the clock fired after `seen` (true), the deadline or a stop (false).
    bool wait(std::uint64_t seen, Steady::time_point deadline);

    // `callback` runs on the clock's thread at each firing, until removed; it must be quick.
    std::uint64_t add_callback(std::function<void()> callback);
    // After this returns the callback is not running (unless removed from inside itself) and
    // does not run again.
    void remove_callback(std::uint64_t id);

    void on_time() noexcept override;

  private:
    void fire(std::unique_lock<std::mutex>& lock);
    void reschedule();                                             // with mutex_ held
    void note_locked(Steady::time_point due);                      // with mutex_ held
    void aim(PreciseTime redis_now, Steady::time_point received);  // with mutex_ held
    Steady::time_point to_steady(TimePoint t) const;               // with mutex_ held

    const Duration idle_check_;
    mutable std::mutex mutex_;
    std::condition_variable waiters_cv_;  // fired, stop
    WakeTimer* timer_ = nullptr;          // from start() on
    bool stopped_ = false;
    std::uint64_t epoch_ = 0;
    Steady::time_point last_fire_;
    std::optional<Steady::time_point> next_;           // the earliest due time noted, not fired yet
    std::optional<std::chrono::microseconds> offset_;  // Redis time minus steady time
    std::map<std::uint64_t, std::shared_ptr<std::function<void()>>> callbacks_;
    std::uint64_t next_callback_ = 1;

    // Held while callbacks run, so that remove_callback can wait for a running one to return.
    std::mutex firing_mutex_;
    std::atomic<std::thread::id> firing_thread_{};
};

}  // namespace delayq::detail
