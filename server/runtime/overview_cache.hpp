#pragma once

#include <chrono>
#include <cstdint>
#include <delayq/client.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "metrics/scrape_cache.hpp"
#include "runtime/history_recorder.hpp"

namespace delayq::server::runtime {

// A queue as GET /v1/overview shows it.
struct OverviewQueue {
    std::string queue;
    QueueStats now;
    // The oldest point of its history within the last hour (Redis clock), which the hour's
    // figures run from; none before the first point.
    std::optional<QueueStats> hour_start;
    bool recording = false;  // whether this server samples its history
};

struct Overview {
    std::vector<OverviewQueue> queues;  // sorted by name
    bool truncated = false;
    bool redis_up = false;
};

// GET /v1/overview's figures, which every open dashboard polls each second: read from Redis at
// most once per max_age whatever the number of pages (a ScrapeCache of at most max_queues
// queues), each queue recorded in the history (within the recorder's cap) so that its hour has
// points, and the oldest of those read at most once a history period a queue: the hour's start
// moves a period at a time. Thread-safe.
class OverviewCache {
  public:
    OverviewCache(Client client, HistoryRecorder& recorder, Duration max_age,
                  std::size_t max_queues);

    // Never throws for Redis: a failed read answers redis_up false; a failed read of one
    // queue's history leaves its hour_start as it was.
    std::shared_ptr<const Overview> get();
    std::uint64_t reads() const { return scrapes_.reads(); }  // of the queues' stats

  private:
    struct HourStart {
        std::chrono::steady_clock::time_point read_at;
        std::optional<QueueStats> point;
    };
    std::shared_ptr<const Overview> build(const Scrape& scrape);
    void refresh_hour_start(const QueueSample& sample, HourStart& start);

    Client client_;
    HistoryRecorder& recorder_;
    ScrapeCache scrapes_;
    std::mutex mu_;  // held while a new overview is built, so that callers share it
    std::shared_ptr<const Scrape> scrape_;  // what overview_ was built from
    std::shared_ptr<const Overview> overview_;
    std::map<std::string, HourStart> hour_starts_;  // the queues of the last read only
};

}  // namespace delayq::server::runtime
