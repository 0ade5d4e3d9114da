#pragma once

#include <cstddef>
#include <delayq/types.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace delayq::server::runtime {

// A queue's lifetime totals at one instant (Redis clock).
struct HistoryPoint {
    TimePoint at;
    Totals totals;
};

// The last hour of every watched queue's totals, a point a second, for
// GET /v1/queues/{queue}/history (the dashboard's graphs). Held in memory only: a restarted
// server starts with none. Thread-safe.
class History {
  public:
    explicit History(std::size_t capacity = 3600);

    void record(const std::string& queue, const QueueStats& stats);
    // Oldest first; empty for a queue never recorded.
    std::vector<HistoryPoint> points(const std::string& queue) const;
    void forget(const std::string& queue);

  private:
    struct Ring {
        std::vector<HistoryPoint> points;  // capacity_ slots once full
        std::size_t next = 0;              // the slot the next point goes to
    };
    std::size_t capacity_;
    mutable std::mutex mu_;
    std::map<std::string, Ring> rings_;
};

}  // namespace delayq::server::runtime
