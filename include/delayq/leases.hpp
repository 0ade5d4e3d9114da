#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// The messages leased by one fetch, and when calling again is worthwhile.
struct FetchResult {
    std::vector<Delivery> deliveries;
    TimePoint now;  // Redis time of the fetch, whole milliseconds
    // The microseconds of that time past `now` (0-999): a waiter aims at a due instant with them,
    // instead of half a millisecond after it on average.
    std::chrono::microseconds now_micros{0};
    std::optional<TimePoint> next;               // next due time or lease deadline; none when idle
    std::vector<DeadLetterEvent> dead_lettered;  // moved to the dead-letter set by this fetch
};

// A queue as its consumers see it, for those that drive leases themselves (the Consumer is built
// on it, and so is the HTTP service). Cheap to copy; thread-safe. Every operation on a lease
// answers with a LeaseResult; a lease that already ended answers LeaseStatus::kLost and changes
// nothing.
class Leases {
  public:
    const std::string& name() const;

    // Leases up to max_count (1 to kMaxBatch) due messages for `visibility`. Also returns lapsed
    // leases to pending and dead-letters messages past their expiry.
    FetchResult fetch(std::size_t max_count, Duration visibility);
    LeaseResult ack(const Lease& lease);
    // Acks up to kMaxBatch leases in one script call; one result per lease, in order. A lease named
    // twice is acked once: the second answers kLost.
    std::vector<LeaseResult> ack(std::span<const Lease> leases);
    // kRetrying after nack.delay, or without one after a Backoff{} for the attempts the message
    // had (computed by the script, which knows them); kDeadLettered when out of attempts or
    // expired.
    LeaseResult nack(const Lease& lease, const Nack& nack);
    LeaseResult reject(const Lease& lease, const Reject& reject);  // kDeadLettered
    // Renews the lease for `visibility` from now on the Redis clock: kExtended, with the new end.
    LeaseResult extend(const Lease& lease, Duration visibility);
    // Renews up to kMaxBatch leases in one script call; one result per lease, in order.
    std::vector<LeaseResult> extend(std::span<const Lease> leases, Duration visibility);
    // Hands an unstarted delivery back at its due time, without counting the attempt.
    LeaseResult release(const Lease& lease);
    // Hands up to kMaxBatch back in one script call; one result per lease, in order. A lease named
    // twice is released once: the second answers kLost.
    std::vector<LeaseResult> release(std::span<const Lease> leases);

  private:
    friend class Client;
    friend class Consumer;
    friend class Waiter;
    explicit Leases(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
