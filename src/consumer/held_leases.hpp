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
    // The handler is done and the outcome is on its way: an extension that then finds the lease
    // gone only means the ack or nack got there first.
    void mark_completing(const Lease& lease);
    // The outcome reached Redis (or was given up): the lease is no longer held.
    void forget(const Lease& lease);
    // Still held, and not counted lost by the extender (which forgets what it counts).
    bool holds(const Lease& lease) const;
    // The extender found this lease gone. True when that is a loss (held, not completing), and
    // forgets it so that its outcome's refusal is not counted again.
    bool lose(const Lease& lease);
    std::vector<Lease> all() const;

  private:
    struct Held {
        std::uint64_t token = 0;
        bool completing = false;
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Held> held_;  // message id -> lease
};

}  // namespace delayq::detail
