#pragma once

#include <chrono>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "runtime/long_poll.hpp"

// The long-poll hub's private parts, shared by its two sources: long_poll.cpp (polls, fetches,
// deadlines, stop) and long_poll_slots.cpp (which queues hold a waiter: made, capped, idled and
// released).
namespace delayq::server::runtime {

struct LongPollHub::Poll {
    PollId id = 0;
    std::string queue;
    std::string token;
    std::size_t max = 1;
    Duration visibility{};
    PollDone done;
    std::list<std::shared_ptr<Poll>>::iterator where;  // in its slot's `waiting`
    bool in_fetch = false;   // a fetch for it is under way: only that fetch answers it
    bool expired = false;    // its deadline passed during that fetch
    bool cancelled = false;  // nobody to answer: whatever it gets is released
};

struct LongPollHub::Slot {
    Slot(std::string q, std::string t, Leases l)
        : queue(std::move(q)), owner(std::move(t)), leases(std::move(l)) {}
    std::string queue;
    std::string owner;  // the token whose poll made it (empty without auth)
    Leases leases;
    // Shared with stats(), which reads it outside mu_. Before the subscription: that is reset
    // first when a released slot goes.
    std::shared_ptr<Waiter> waiter;
    Waiter::Subscription subscription;
    std::list<std::shared_ptr<Poll>> waiting;  // oldest first: the oldest poll is served first
    bool fetching = false;                     // one fetch loop per queue at a time
    bool fired = false;                        // the waiter fired while a fetch was under way
    // The waiter's epoch before the last fetch that left nothing due; while it has not fired
    // since, a new poll need not fetch: the waiter fires when something falls due.
    std::optional<std::uint64_t> drained_epoch;
    // No poll and no fetch since idle_since: in the hub's idle_ list, released in time.
    bool idle = false;
    std::chrono::steady_clock::time_point idle_since;
    std::list<Slot*>::iterator idle_pos;
};

struct LongPollHub::Retirement {
    explicit Retirement(LongPollHub& h) : hub(h) {}
    Retirement(const Retirement&) = delete;
    Retirement& operator=(const Retirement&) = delete;
    ~Retirement() { hub.retire(std::move(slots)); }
    LongPollHub& hub;
    Slots slots;
};

}  // namespace delayq::server::runtime
