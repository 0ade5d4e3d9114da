#include "histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace delayq::bench {

Histogram::Histogram(std::int64_t lo, std::int64_t fine_hi, std::int64_t coarse_width,
                     std::int64_t hi)
    : lo_(lo),
      fine_hi_(fine_hi),
      coarse_width_(coarse_width),
      hi_(hi),
      size_(static_cast<std::size_t>(fine_hi - lo + (hi - fine_hi) / coarse_width)),
      buckets_(new std::atomic<std::uint64_t>[size_]),
      min_(std::numeric_limits<std::int64_t>::max()),
      max_(std::numeric_limits<std::int64_t>::min()) {
    for (std::size_t i = 0; i < size_; ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

std::size_t Histogram::bucket_of(std::int64_t value) const {
    const std::int64_t v = std::clamp(value, lo_, hi_ - 1);
    if (v < fine_hi_) return static_cast<std::size_t>(v - lo_);
    return std::min(size_ - 1,
                    static_cast<std::size_t>(fine_hi_ - lo_ + (v - fine_hi_) / coarse_width_));
}

std::int64_t Histogram::value_of(std::size_t bucket) const {
    const auto fine = static_cast<std::size_t>(fine_hi_ - lo_);
    if (bucket < fine) return lo_ + static_cast<std::int64_t>(bucket);
    return fine_hi_ + static_cast<std::int64_t>(bucket - fine) * coarse_width_;
}

void Histogram::record(std::int64_t value) {
    buckets_[bucket_of(value)].fetch_add(1, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
    std::int64_t seen = min_.load(std::memory_order_relaxed);
    while (value < seen && !min_.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
    }
    seen = max_.load(std::memory_order_relaxed);
    while (value > seen && !max_.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
    }
}

std::int64_t Histogram::percentile(double p) const {
    const std::uint64_t n = count();
    if (n == 0) return 0;
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    rank = std::clamp<std::uint64_t>(rank, 1, n);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < size_; ++i) {
        seen += buckets_[i].load(std::memory_order_relaxed);
        // The end buckets hold clamped samples: the exact extremes say more.
        if (seen >= rank) {
            if (i == 0) return min_.load(std::memory_order_relaxed);
            if (i == size_ - 1) return max_.load(std::memory_order_relaxed);
            return value_of(i);
        }
    }
    return max_.load(std::memory_order_relaxed);
}

Json Histogram::summary(double scale, bool with_min) const {
    const bool empty = count() == 0;
    auto at = [&](double p) { return static_cast<double>(percentile(p)) / scale; };
    Json out{{"p50", at(50)},
             {"p90", at(90)},
             {"p99", at(99)},
             {"p99_9", at(99.9)},
             {"max", empty ? 0.0 : static_cast<double>(max_.load()) / scale}};
    if (with_min) out["min"] = empty ? 0.0 : static_cast<double>(min_.load()) / scale;
    return out;
}

}  // namespace delayq::bench
