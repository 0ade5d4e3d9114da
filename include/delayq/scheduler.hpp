#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delayq/types.hpp"

namespace delayq {

class Client;

namespace detail {
class SchedulerRuntime;
}

struct SchedulerOptions {
    // The queues whose schedules this scheduler claims; empty: every queue with schedules,
    // found in the registry (docs/design.md, Schedules) every `discover`.
    std::vector<std::string> queues{};
    // The longest a queue goes unread when nothing is due: a new schedule's second occurrence
    // is found within it (the first is sent by the upsert itself). One call per queue each.
    Duration poll = std::chrono::seconds(2);
    Duration discover = std::chrono::seconds(2);
    // Queues followed at once; more found in the registry are left for later (counted in
    // SchedulerStats::queues_over_limit): the per-queue state stays bounded.
    std::size_t max_queues = 10000;
};

struct SchedulerStats {
    std::uint64_t claims = 0;     // claim calls that sent or skipped occurrences
    std::uint64_t fired = 0;      // occurrences this scheduler sent
    std::uint64_t missed = 0;     // occurrences it counted missed (catch-up policy)
    std::uint64_t skipped = 0;    // occurrences it skipped (overlap kSkip)
    std::uint64_t conflicts = 0;  // claims another scheduler (or a change) made first
    // Failed reads and claims: Redis failures, refusals, and stored specs this host cannot
    // compute (a zone its tzdata lacks), which hold up only their own schedule.
    std::uint64_t redis_errors = 0;
    std::size_t queues = 0;  // followed now
    std::uint64_t queues_over_limit = 0;
    // Per queue: how late this scheduler made its last claim, after the instant it could
    // (Redis clock). A claim of a schedule with overlap kAllow is ahead of the occurrence it
    // sends, so only lag beyond the gap between occurrences delays one.
    std::map<std::string, Duration> lag{};
};

// Claims the occurrences of recurring schedules and sends their messages: sleeps until the
// next claim is due (by the Redis clock), else `poll`; any number of schedulers may run on one
// Redis, and each occurrence is sent once whichever claims it. Failures are logged, counted and
// retried with back-off, never thrown: a queue refused for its layout (ConfigurationError) or
// the Redis user's rights (PermissionError) is tried again a minute later, the others go on.
// Thread: one of its own.
class Scheduler {
  public:
    // Throws InvalidArgument for bad options or queue names. Connects nothing until start().
    Scheduler(const Client& client, SchedulerOptions options = {});
    // Stops.
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // Once; a second call does nothing.
    void start();
    // Ends the loop after the call in progress; callable from any thread.
    void stop();
    // Blocks until stopped.
    void wait();
    SchedulerStats stats() const;

  private:
    std::unique_ptr<detail::SchedulerRuntime> runtime_;
};

}  // namespace delayq
