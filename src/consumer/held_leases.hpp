#pragma once

#include <cstddef>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "delayq/delivery.hpp"

namespace delayq::detail {

// Every lease a consumer holds, from its fetch until its outcome reached Redis: what the lease
// extender renews, and what tells a lost lease from an outcome that got there first. Thread-safe.
class HeldLeases {
  public:
    // Holds the leases of a fetch. Returns how many replaced an older lease of the same message
    // that lapsed: delivered here again while still held, and not because its outcome was on
    // its way (that may be a nack that reached Redis just before the fetch, which lost nothing).
    std::size_t hold(std::span<const Delivery> deliveries);
    // The handlers of `items` (each with a `lease` member) are done and their outcomes on their
    // way: an extension that then finds a lease gone only means the ack or nack got there first.
    // A chunk at a time under one lock: a lock per message cost e2e throughput.
    template <class Items>
    void mark_completing(const Items& items) {
        std::lock_guard lock(mutex_);
        for (const auto& item : items) mark_completing_locked(item.lease);
    }
    // The outcomes of `items` reached Redis (or were given up): their leases are no longer held.
    template <class Items>
    void forget(const Items& items) {
        std::lock_guard lock(mutex_);
        for (const auto& item : items) forget_locked(item.lease);
    }
    // Still held, and not counted lost by the extender (which forgets what it counts).
    bool holds(const Lease& lease) const;
    // The extender found this lease gone. True when that is a loss (held, not completing), and
    // forgets it so that its outcome's refusal is not counted again.
    bool lose(const Lease& lease);
    std::vector<Lease> all() const;

  private:
    void mark_completing_locked(const Lease& lease);
    void forget_locked(const Lease& lease);

    struct Held {
        std::uint64_t token = 0;
        bool completing = false;
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Held> held_;  // message id -> lease
};

}  // namespace delayq::detail
