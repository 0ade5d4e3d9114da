#pragma once

// A pusher: sends the due messages of queues with a push target as HTTP requests, and acks,
// retries or dead-letters each by its answer (docs/push.md). `delayq serve` runs one;
// `delayq push run` runs one alone. Any number of pushers share a queue through leases, within
// the target's max_in_flight and rate, which Redis counts for all of them.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delayq/client.hpp"
#include "delayq/push.hpp"

namespace delayq::push {

struct PusherOptions {
    // The queues to push; empty: every queue with a push target (Client::push_queues), looked
    // up again every `discover`.
    std::vector<std::string> queues{};
    PushNetwork network{};
    // PEM certificates to verify HTTPS receivers with; empty: the system's store.
    std::string ca_file{};
    // Requests in flight at once across every queue of this pusher, so that slow receivers hold
    // at most this many; each queue holds at most its target's max_in_flight of them.
    std::size_t max_in_flight = 1000;
    // Queues followed at once (the others are counted in PusherStats::queues_over_limit): the
    // per-queue state stays bounded.
    std::size_t max_queues = 10000;
    // How often the queue list and each target are read again (a target's change is seen within
    // it).
    Duration discover = std::chrono::seconds(2);
    // The longest a queue goes without a lease call when nothing told the pusher that something
    // is due (its waiter's idle_check).
    Duration idle_check = std::chrono::seconds(5);
    // How often at most a queue's last answer is written for `push get` (PushTargets::record).
    Duration record_every = std::chrono::seconds(1);
    // At stop, how long the requests in flight may still end and be settled; the others are
    // abandoned, and their messages come back when their leases end.
    Duration drain = std::chrono::seconds(10);
};

// Upper bounds of the push latency histogram's buckets, in seconds (Prometheus' le): from a
// message's due time to its answer.
inline constexpr std::array<double, 13> kPushLatencyBuckets = {
    0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

// From due times to answers: counts per bucket (not cumulative; beyond the last bound only in
// count), the count and the sum (s).
struct PushLatency {
    std::array<std::uint64_t, kPushLatencyBuckets.size()> buckets{};
    std::uint64_t count = 0;
    double sum = 0;
};

struct PushQueueStats {
    std::uint64_t acked = 0;          // answered 2xx, and acked
    std::uint64_t retried = 0;        // to be tried again (nacked)
    std::uint64_t dead_lettered = 0;  // refused by the receiver, or out of attempts
    // Settled too late: the lease had ended (the message was or will be pushed again).
    std::uint64_t lost = 0;
    std::size_t in_flight = 0;
    PushLatency latency{};
};

struct PusherStats {
    std::map<std::string, PushQueueStats> queues{};
    std::size_t in_flight = 0;
    // Failed lease, settle, read and discovery calls (retried with back-off).
    std::uint64_t redis_errors = 0;
    std::uint64_t queues_over_limit = 0;
};

class PusherRuntime;

// Failures are logged, counted and retried with back-off, never thrown. Threads: one for
// Redis, one for HTTP.
class Pusher {
  public:
    // Throws InvalidArgument for bad options or queue names. Connects nothing until start().
    Pusher(const Client& client, PusherOptions options = {});
    // Stops.
    ~Pusher();
    Pusher(const Pusher&) = delete;
    Pusher& operator=(const Pusher&) = delete;

    // Once; a second call does nothing.
    void start();
    // Stops leasing, lets the requests in flight end (options.drain at most) and settles them;
    // callable from any thread.
    void stop();
    // Blocks until stopped.
    void wait();
    PusherStats stats() const;

  private:
    std::unique_ptr<PusherRuntime> runtime_;
};

}  // namespace delayq::push
