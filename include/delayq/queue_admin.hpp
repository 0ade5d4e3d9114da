#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "delayq/options.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// A queue's settings, stored in Redis with the queue so that every client of it agrees. A
// queue that was never configured has the defaults below.
struct QueueSettings {
    // For messages sent without their own max_attempts. Such a message follows the setting as
    // it is when it runs out of attempts, not as it was when it was sent.
    int max_attempts = kDefaultMaxAttempts;
    // For nacks that name no delay: Leases::nack, and a Consumer without its own backoff.
    Backoff backoff{};
    // Retention of the dead-letter set; 0 disables a bound. Removals count in
    // Totals::dead_trimmed.
    std::size_t dead_max_count = kDefaultDeadMaxCount;
    Duration dead_max_age = kDefaultDeadMaxAge;
    // Paused, fetch leases nothing (lapsed leases still go back to pending); sends go on.
    bool paused = false;
    // The version of the key layout and record format the queue was written in (0: nothing was
    // written yet). A client of another version is refused with a ConfigurationError.
    int layout = 0;
};

// A change of some settings; what is unset stays as it is.
struct SettingsUpdate {
    std::optional<int> max_attempts{};
    std::optional<Backoff> backoff{};
    std::optional<std::size_t> dead_max_count{};
    std::optional<Duration> dead_max_age{};
};

enum class DeleteStatus { kDeleted, kInFlight };

struct DeleteResult {
    DeleteStatus status = DeleteStatus::kDeleted;
    std::size_t pending = 0;    // messages deleted (kDeleted)
    std::size_t in_flight = 0;  // deleted, or (kInFlight) the leases that stopped the delete
    std::size_t dead = 0;
};

// A queue as its operators see it: what is in it, and the dead letters. Cheap to copy;
// thread-safe; every call is one or a few script calls, read by the Redis clock.
class QueueAdmin {
  public:
    const std::string& name() const;

    // The message with this id in whatever state it is; nullopt when there is none.
    std::optional<MessageInfo> get(std::string_view id);
    QueueStats stats();
    // How many messages fall due when: the pending ones in `buckets` buckets of `bucket` from
    // now on (Redis clock), 1 to kMaxTimelineBuckets of at least 1 ms. One script call of a
    // ZCOUNT a bucket, cheap on a queue of millions. Bad arguments throw InvalidArgument.
    Timeline timeline(Duration bucket, std::size_t buckets);
    // The queue's history in Redis (docs/design.md, History): a point, the queue's stats as
    // they were, a kHistoryPeriod, kept kHistoryKeep. record_history samples the current
    // period unless it has a point already: any number of processes may sample a queue, and
    // the first of a period writes it. Whether this call did. Writes (the writer role).
    bool record_history();
    // The points of the periods from `since` on, oldest first, at most `limit` (1 to kMaxBatch;
    // an hour holds 361 at most); each point's `now` is when it was taken (Redis clock). With a
    // limit of 1, the oldest alone: against stats(), the figures over the whole span.
    std::vector<QueueStats> history(TimePoint since, std::size_t limit = kMaxBatch);
    // Messages of one state in the order they leave it (due time, lease deadline, age), a page
    // at a time.
    MessagePage list(State state, const PageRequest& page = {});

    // Dead letters back to pending, due now, with fresh attempts and no expiry. Returns how many
    // distinct messages were moved.
    std::size_t requeue(const DeadLetterSelector& which);
    // Dead letters deleted. Returns how many distinct messages were deleted.
    std::size_t purge(const DeadLetterSelector& which);

    QueueSettings settings();
    // Applies the change atomically and returns the settings after it. A bad value is an
    // InvalidArgument, and nothing changes.
    QueueSettings update_settings(const SettingsUpdate& update);
    // Fetches lease nothing until resume(); sends, acks and inspection go on. Resuming wakes
    // sleeping consumers at once.
    void pause();
    void resume();

    // Deletes every key of the queue: messages, dead letters, counters, settings. Refused
    // (kInFlight, nothing deleted) while messages are leased, unless `force`: their consumers'
    // acks then find nothing, and their messages are gone.
    DeleteResult delete_queue(bool force = false);

  private:
    friend class Client;
    explicit QueueAdmin(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
