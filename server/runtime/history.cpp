#include "runtime/history.hpp"

#include <delayq/error.hpp>

namespace delayq::server::runtime {

History::History(std::size_t capacity) : capacity_(capacity) {
    if (capacity_ == 0) throw InvalidArgument("a history holds at least one point");
}

void History::record(const std::string& queue, const QueueStats& stats) {
    std::lock_guard lock(mu_);
    Ring& ring = rings_[queue];
    const HistoryPoint point{stats.now, stats.totals};
    if (ring.points.size() < capacity_) {
        ring.points.push_back(point);
    } else {
        ring.points[ring.next] = point;
    }
    ring.next = (ring.next + 1) % capacity_;
}

std::vector<HistoryPoint> History::points(const std::string& queue) const {
    std::lock_guard lock(mu_);
    const auto it = rings_.find(queue);
    if (it == rings_.end()) return {};
    const Ring& ring = it->second;
    if (ring.points.size() < capacity_) return ring.points;
    std::vector<HistoryPoint> out;
    out.reserve(capacity_);
    for (std::size_t i = 0; i < capacity_; ++i) {
        out.push_back(ring.points[(ring.next + i) % capacity_]);
    }
    return out;
}

void History::forget(const std::string& queue) {
    std::lock_guard lock(mu_);
    rings_.erase(queue);
}

}  // namespace delayq::server::runtime
