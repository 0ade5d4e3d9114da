#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>

#include "delayq/types.hpp"

namespace delayq::detail {

// The shape every background loop shares (asynq's model): constructed on what it works with,
// started once, asked to stop with request_stop() (which only signals and never blocks), joined
// once. run() must not throw: a loop logs, counts and backs off.
class Loop {
  public:
    Loop() = default;
    virtual ~Loop() = default;
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    void start() {
        thread_ = std::thread([this] {
            // Named so that top -H, perf and /proc tell the threads apart.
            pthread_setname_np(pthread_self(), thread_name());
            run();
        });
    }
    virtual void request_stop() = 0;
    void join() {
        if (thread_.joinable()) thread_.join();
    }

  protected:
    virtual void run() = 0;
    // At most 15 characters (the kernel's limit).
    virtual const char* thread_name() const = 0;

  private:
    std::thread thread_;
};

// A stop request a loop can sleep on: its back-off and interval sleeps end at once when it comes.
class StopSignal {
  public:
    void request() {
        {
            std::lock_guard lock(mutex_);
            requested_.store(true, std::memory_order_relaxed);
        }
        cv_.notify_all();
    }
    bool requested() const { return requested_.load(std::memory_order_relaxed); }
    // Sleeps up to `d`; false when the stop was requested.
    bool sleep_for(Duration d) {
        std::unique_lock lock(mutex_);
        return !cv_.wait_for(lock, d, [&] { return requested(); });
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::atomic<bool> requested_{false};
};

// Back-off before reconnecting after `failures` consecutive failures: 50 ms doubling to 5 s,
// with jitter so that many clients do not reconnect in step.
Duration reconnect_delay(int failures);

// Logs and counts a Redis failure of a background loop of `queue`; the loop retries.
void report_loop_error(std::atomic<std::uint64_t>& errors, std::string_view queue,
                       std::string_view loop, const std::exception& e);

}  // namespace delayq::detail
