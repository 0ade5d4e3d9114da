#pragma once

// A lock-free histogram of integer samples, for lateness recorded from many handler threads at
// hundreds of thousands per second, where a mutex and a vector of samples would cost more than
// the handler and grow by gigabytes in a long run.

#include <atomic>
#include <cstdint>
#include <memory>

#include "harness.hpp"

namespace delayq::bench {

class Histogram {
  public:
    // Samples in [lo, fine_hi) are kept exactly; [fine_hi, hi) in buckets of coarse_width,
    // each read back as its lower edge. Samples outside [lo, hi) count in the end buckets;
    // min and max are exact whatever the value.
    Histogram(std::int64_t lo, std::int64_t fine_hi, std::int64_t coarse_width, std::int64_t hi);

    void record(std::int64_t value);
    std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
    // Nearest-rank percentile, p in [0, 100]; 0 when empty.
    std::int64_t percentile(double p) const;
    // p50, p90, p99, p99.9, max (and min), each divided by `scale` (e.g. 1000 for µs -> ms).
    Json summary(double scale, bool with_min) const;

  private:
    std::size_t bucket_of(std::int64_t value) const;
    std::int64_t value_of(std::size_t bucket) const;

    std::int64_t lo_, fine_hi_, coarse_width_, hi_;
    std::size_t size_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;
    std::atomic<std::uint64_t> count_{0};
    std::atomic<std::int64_t> min_, max_;
};

}  // namespace delayq::bench
