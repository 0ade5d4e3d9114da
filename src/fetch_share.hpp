#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <mutex>
#include <optional>

#include "delayq/leases.hpp"

namespace delayq::detail {

// The fetches of one queue's Consumers in one Client, shared (docs/design.md, Shared fetches).
// Every consumer's clock fires on the same wake signal, and each used to make its own call:
// with eight consumers, one call took what was due and seven found nothing. Here a consumer's
// fetch either joins the others asking at the same time into one call (a round), or is answered
// without a call by a round sent after its clock fired that found nothing more due.
class FetchShare {
  public:
    using Steady = std::chrono::steady_clock;
    // A round's call, made by whichever consumer leads it, on that consumer's connection.
    using Call = std::function<FetchResult(std::size_t want, Duration visibility)>;

    struct Share {
        // This consumer's part of the round's leases (at most what it asked for), and the
        // round's clock fields (now, next); the round's dead-letter events go to its leader only.
        FetchResult result;
        Steady::time_point received;  // when the round's answer came
        bool called = false;          // false: answered by an earlier quiet round, no call
    };

    // Rounds sent so far: a consumer reads it when its clock fires, and passes it to fetch().
    std::uint64_t rounds_sent() const;

    // Requests waiting for the next round (tests await it).
    std::size_t waiting() const;

    // Up to `want` (1 to kMaxBatch) leases for `visibility`. A round sent after `trigger` (a
    // rounds_sent() value) that left nothing due answers at once; else this joins the next
    // round with the same visibility, or leads it with `call`. The round's error is rethrown to
    // every consumer in it.
    Share fetch(std::size_t want, Duration visibility, std::uint64_t trigger, const Call& call);

  private:
    struct Request {
        std::size_t want = 0;
        Duration visibility{};
        bool taken = false;  // into a round by its leader
        bool done = false;
        Share share;
        std::exception_ptr error;
    };
    // The newest round that found nothing more due: whoever triggered before it was sent has
    // nothing left to fetch.
    struct Quiet {
        std::uint64_t round;
        FetchResult clock;  // now, now_micros and next only
        Steady::time_point received;
    };

    // Runs a round for `leader` and the waiting requests it can take; called and returns with
    // the lock held.
    void lead(std::unique_lock<std::mutex>& lock, Request& leader, const Call& call);

    mutable std::mutex mutex_;
    std::condition_variable rounds_cv_;  // a round ended
    std::uint64_t sent_ = 0;
    bool in_flight_ = false;
    std::list<Request*> waiting_;  // for the next round, in arrival order
    std::optional<Quiet> quiet_;
};

}  // namespace delayq::detail
