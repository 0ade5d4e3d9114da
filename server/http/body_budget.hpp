#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

namespace delayq::server::http {

// The bytes of request bodies the server holds at once, from reading them to answering them,
// capped (--max-body-bytes-in-flight): many clients sending large bodies together cannot take
// the server's memory. A request reserves its body's bytes before it is read; one that does not
// fit waits, in the order it came, until others are answered. Thread-safe.
class BodyBudget {
  public:
    explicit BodyBudget(std::size_t capacity) : capacity_(capacity) {}

    using Ticket = std::uint64_t;
    // Takes `bytes` now and returns 0, or queues the reservation and returns its ticket: once
    // the bytes are taken for it, `granted` is called, on the thread that released them (so it
    // must be quick). `bytes` above the capacity are never granted: check them first.
    Ticket reserve(std::size_t bytes, std::function<void()> granted);
    // Gives up a queued reservation: true when it was still waiting; false when it was granted
    // already (its `granted` runs or ran, and its bytes are to be released).
    bool cancel(Ticket ticket);
    // cancel(), for a reservation that waited its whole time (the request is answered 503):
    // counted when it was still waiting.
    bool time_out(Ticket ticket);
    void release(std::size_t bytes);

    std::size_t capacity() const { return capacity_; }
    std::size_t in_flight() const;
    std::size_t waiting() const;      // reservations queued
    std::uint64_t timed_out() const;  // reservations that waited in vain

  private:
    struct Waiting {
        Ticket ticket;
        std::size_t bytes;
        std::function<void()> granted;
    };

    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::size_t in_flight_ = 0;
    std::list<Waiting> waiting_;  // first come, first served: a large body is not passed over
    Ticket next_ticket_ = 1;
    std::uint64_t timed_out_ = 0;
};

}  // namespace delayq::server::http
