#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "client_core.hpp"
#include "codec/schedule.hpp"
#include "delayq/scheduler.hpp"
#include "loop.hpp"
#include "schedule/recurrence.hpp"

namespace delayq::detail {

class QueueCore;

// The scheduler's loop: follows the queues with schedules (the named ones, or the registry's),
// reads each when its next claim falls due or `poll` passed (schedule_poll.lua), and claims
// what is due (schedule_claim.lua) with occurrences computed here (plan_claim). One thread;
// the per-queue state is bounded by max_queues and the recurrence cache by kMaxRecurrences.
class SchedulerRuntime final : public Loop {
  public:
    SchedulerRuntime(std::shared_ptr<ClientCore> client, SchedulerOptions options);
    ~SchedulerRuntime() override;

    // Starts the loop's thread; a second call does nothing.
    void start_once() {
        if (!started_.exchange(true)) start();
    }
    void request_stop() override { stop_.request(); }
    SchedulerStats stats() const;

  protected:
    void run() override;
    const char* thread_name() const override { return "delayq-sched"; }

  private:
    using Steady = std::chrono::steady_clock;
    struct Followed {
        std::shared_ptr<QueueCore> core;
        Steady::time_point wake{};  // when to read the queue next
        int failures = 0;
        Duration lag{0};
    };

    void discover(Steady::time_point now);
    void follow(const std::string& queue);
    // Reads one queue and claims what is due; returns when to read it next.
    Steady::time_point serve(Followed& queue);
    // A queue refused for its layout or the user's rights: logged, retried a minute later.
    Steady::time_point refused(const QueueCore& core, const std::exception& e);
    void claim(QueueCore& core, const schedule_codec::DueSchedule& due, TimePoint now);
    const Recurrence& recurrence_of(const std::string& queue,
                                    const schedule_codec::DueSchedule& due);

    std::shared_ptr<ClientCore> client_;
    SchedulerOptions options_;
    StopSignal stop_;
    std::atomic<bool> started_{false};
    std::map<std::string, Followed> followed_;  // the loop's thread only
    Steady::time_point discover_at_{};
    // By queue, schedule, spec hash and anchor: parsing a cron and finding a zone once per spec.
    std::unordered_map<std::string, Recurrence> recurrences_;

    mutable std::mutex stats_mutex_;  // guards lag_, queues_
    std::map<std::string, Duration> lag_;
    std::size_t queues_ = 0;
    std::atomic<std::uint64_t> claims_{0};
    std::atomic<std::uint64_t> fired_{0};
    std::atomic<std::uint64_t> missed_{0};
    std::atomic<std::uint64_t> skipped_{0};
    std::atomic<std::uint64_t> conflicts_{0};
    std::atomic<std::uint64_t> redis_errors_{0};
    std::atomic<std::uint64_t> over_limit_{0};
};

}  // namespace delayq::detail
