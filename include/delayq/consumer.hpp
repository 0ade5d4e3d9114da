#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "delayq/delivery.hpp"
#include "delayq/leases.hpp"
#include "delayq/options.hpp"

namespace delayq {

namespace detail {
class ConsumerRuntime;
}

// Called for each delivery, from one of `concurrency` threads. An exception counts as
// Nack{.error = what()} with the consumer's backoff.
using Handler = std::function<Outcome(const Delivery&)>;

struct ConsumerStats {
    std::uint64_t fetched = 0;
    std::uint64_t acked = 0;
    std::uint64_t nacked = 0;
    std::uint64_t dead_lettered = 0;
    std::uint64_t released = 0;
    std::uint64_t leases_lost = 0;  // an ack, nack or extension found the lease gone
    std::uint64_t redis_errors = 0;
};

// Runs a handler over one queue: batch fetching, concurrency, lease extension while a handler
// runs, retries with backoff, and a graceful stop. It sleeps until the next message falls due
// (aimed by the Redis clock) or a producer signals an earlier one, and survives Redis restarts.
class Consumer {
  public:
    Consumer(Leases leases, Handler handler, ConsumerOptions options = {});
    // Stops gracefully, then waits for every handler thread to return.
    ~Consumer();
    Consumer(const Consumer&) = delete;
    Consumer& operator=(const Consumer&) = delete;

    void start();  // runs in background threads
    // Graceful stop, callable from any thread (not from a signal handler): fetching stops,
    // unstarted leased messages go back at once, running handlers get shutdown_timeout to
    // finish, and their acks are flushed.
    void stop();
    // Blocks until the consumer has stopped. Rethrows a fatal error (ConfigurationError, or
    // PermissionError when the Redis user may not fetch from the queue).
    void wait();
    // start() then wait(); with ConsumerOptions::stop_on_signals, until SIGINT or SIGTERM.
    void run();

    ConsumerStats stats() const;

  private:
    std::unique_ptr<detail::ConsumerRuntime> runtime_;
};

}  // namespace delayq
