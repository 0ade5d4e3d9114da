#pragma once

#include <chrono>
#include <cstdint>
#include <delayq/client.hpp>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "metrics/queue_metrics.hpp"

namespace delayq::server {

// What one read of Redis for /metrics found.
struct Scrape {
    std::chrono::steady_clock::time_point read_at;
    std::vector<QueueSample> queues;  // sorted by name
    bool truncated = false;           // more queues than the cache reads: the first by name
    bool redis_up = false;            // false: the read failed, `queues` is empty
    // Of a PING at the read, when it was answered: none when Redis is down, whose roundtrip
    // is unknown rather than 0.
    std::optional<std::chrono::duration<double>> redis_roundtrip;
};

// The per-queue gauges of /metrics need Redis; this reads them at most once per `max_age`,
// however many scrapers come: the first to find the figures stale reads them, the others that
// come meanwhile wait for and share that read. Thread-safe.
class ScrapeCache {
  public:
    // At most `max_queues` queues are read, the first by name, so that one read stays bounded
    // on a Redis with thousands of queues.
    ScrapeCache(Client client, Duration max_age,
                std::size_t max_queues = std::numeric_limits<std::size_t>::max());

    // The figures, read anew when the last read is older than max_age. Never throws for Redis:
    // a failed read answers redis_up false.
    std::shared_ptr<const Scrape> get();
    // Reads of Redis made so far.
    std::uint64_t reads() const;

  private:
    std::shared_ptr<const Scrape> read() const;

    Client client_;
    Duration max_age_;
    std::size_t max_queues_;
    mutable std::mutex mu_;  // held during a read, so concurrent scrapers share it
    std::shared_ptr<const Scrape> last_;
    std::uint64_t reads_ = 0;
};

}  // namespace delayq::server
