#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace delayq {

using Duration = std::chrono::milliseconds;
// An instant on the Redis server's clock, in unix milliseconds.
using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;

// Where a message is. kScheduled and kReady share one sorted set: a message is ready once its due
// time has passed on the Redis clock and no consumer has leased it yet.
enum class State { kScheduled, kReady, kInFlight, kDead };

std::string_view to_string(State state);
// Parses "scheduled", "ready", "in_flight" or "dead"; nullopt otherwise.
std::optional<State> parse_state(std::string_view text);

struct SendResult {
    std::string id;
    bool duplicate = false;  // the id already existed: nothing was changed
    TimePoint due;           // due time of the message that holds the id
};

enum class CancelResult { kCancelled, kNotFound, kInFlight, kDead };

enum class RescheduleStatus { kRescheduled, kNotFound, kInFlight, kDead };

struct RescheduleResult {
    RescheduleStatus status = RescheduleStatus::kNotFound;
    TimePoint due;  // the new due time when rescheduled
};

// What an operation on a lease did. Every operation that takes a lease answers with this one
// type; kLost means the lease had already ended (it ran out and the message went back to pending,
// or another operation on the same lease came first) and nothing was changed.
enum class LeaseStatus { kAcked, kRetrying, kDeadLettered, kExtended, kReleased, kLost };

struct LeaseResult {
    LeaseStatus status = LeaseStatus::kLost;
    // kRetrying: when the message will be delivered again; kExtended: when the lease now ends.
    TimePoint at{};
    std::string dead_reason{};  // kDeadLettered: why
    int attempts = 0;           // kDeadLettered: deliveries it had

    bool lost() const { return status == LeaseStatus::kLost; }
};

// A message that moved to the dead-letter set.
struct DeadLetterEvent {
    std::string queue;
    std::string id;
    std::string reason;  // "attempts exhausted", "expired" or "rejected"
    int attempts = 0;
};

struct Totals {
    std::uint64_t sent = 0;
    std::uint64_t delivered = 0;
    std::uint64_t acked = 0;
    std::uint64_t retried = 0;  // nacks and lapsed leases that went back to pending
    std::uint64_t dead_lettered = 0;
    std::uint64_t expired = 0;  // part of dead_lettered
    std::uint64_t cancelled = 0;
    std::uint64_t released = 0;  // handed back unstarted by a stopping consumer
    std::uint64_t requeued = 0;
    std::uint64_t purged = 0;
    std::uint64_t dead_trimmed = 0;  // removed by the dead-letter retention bounds
    // Index entries found without a message record and removed (only after data loss in Redis).
    std::uint64_t orphans_removed = 0;
    // Occurrences of recurring schedules: sent (part of sent), not sent by a catch-up policy,
    // not sent by overlap skip.
    std::uint64_t schedule_fired = 0;
    std::uint64_t schedule_missed = 0;
    std::uint64_t schedule_skipped = 0;
};

// How late deliveries came (delivered minus due, on the Redis clock), over every delivery of the
// queue by any consumer since the queue was created. Counted by the fetch script, so it holds for
// all consumers, C++ or HTTP, and survives their restarts. Cumulative, as Prometheus counts.
struct LatenessHistogram {
    struct Bucket {
        Duration le;              // upper bound, inclusive; Duration::max() for the last (+Inf)
        std::uint64_t count = 0;  // deliveries at most `le` late
    };
    std::vector<Bucket> buckets;  // every bucket, ascending
    Duration sum{0};              // of all lateness
    std::uint64_t count = 0;      // deliveries counted
};

struct QueueStats {
    TimePoint now;  // Redis server time of the snapshot
    std::size_t scheduled = 0;
    std::size_t ready = 0;
    std::size_t in_flight = 0;
    std::size_t dead = 0;
    std::optional<TimePoint> next_due;    // earliest due time still in the future
    std::optional<TimePoint> oldest_due;  // earliest due time of all pending messages
    Duration oldest_ready_age{0};         // how long the oldest ready message has waited
    // Deprecated: the same value under its former name, kept for this release (0.2) and then
    // removed. Not marked [[deprecated]]: GCC 12 warns of the attribute wherever a QueueStats
    // is made or copied, which would break every -Werror build that uses the type.
    Duration oldest_overdue_age{0};
    Totals totals;
    LatenessHistogram lateness;
};

// What falls due when (QueueAdmin::timeline).
struct Timeline {
    TimePoint now;  // Redis time of the count
    Duration bucket{};
    std::size_t ready = 0;  // due already, waiting for a consumer
    // counts[i]: pending messages due in (now + i * bucket, now + (i + 1) * bucket].
    std::vector<std::size_t> counts;
    std::size_t later = 0;  // due after the last bucket
};

struct MessageInfo {
    std::string id;
    State state = State::kScheduled;
    TimePoint due;
    std::optional<TimePoint> lease_deadline;  // kInFlight
    std::optional<TimePoint> dead_at;         // kDead
    std::optional<TimePoint> expire_at;
    int attempts = 0;  // deliveries so far
    int max_attempts = 0;
    std::string dead_reason;
    std::string last_error;
    std::string payload;
};

// A request for one page of a listing. The cursor is opaque: empty for the first page, then the
// `next_cursor` of the page before. Pages stay cheap however deep they go, and a message that
// leaves the state between two pages does not shift the ones after it.
struct PageRequest {
    std::string cursor{};
    std::size_t limit = 100;  // 1 to kMaxBatch
};

struct MessagePage {
    std::vector<MessageInfo> messages;
    std::string next_cursor;  // empty when this page is the last
};

// Which dead letters requeue and purge take: the ones named (ids that are not dead letters are
// skipped, and an id named twice counts once), or all of them. Naming ids and all at once is an
// InvalidArgument.
struct DeadLetterSelector {
    std::vector<std::string> ids{};
    bool all = false;
};

}  // namespace delayq
