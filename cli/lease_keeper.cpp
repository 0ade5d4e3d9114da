#include "lease_keeper.hpp"

#include <algorithm>
#include <delayq/error.hpp>

namespace delayq::cli {

LeaseKeeper::LeaseKeeper(Leases leases, Duration visibility)
    : leases_(std::move(leases)),
      period_(std::max(Duration(1), visibility / 3)),
      visibility_(visibility),
      thread_([this] { run(); }) {}

LeaseKeeper::~LeaseKeeper() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void LeaseKeeper::hold(std::span<const Lease> leases) {
    {
        std::lock_guard lock(mutex_);
        held_.assign(leases.begin(), leases.end());
        ++generation_;
    }
    cv_.notify_all();
}

void LeaseKeeper::release() {
    {
        std::lock_guard lock(mutex_);
        held_.clear();
        ++generation_;
    }
    // No wake-up: the thread finds out when its period ends, which costs one wake-up per
    // period instead of one per batch.
}

void LeaseKeeper::run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        if (held_.empty()) {
            cv_.wait(lock, [&] { return stop_ || !held_.empty(); });
            continue;
        }
        const std::uint64_t generation = generation_;
        if (cv_.wait_for(lock, period_, [&] { return stop_ || generation_ != generation; })) {
            continue;
        }
        // The same leases for a whole period: the write is slow.
        const std::vector<Lease> leases = held_;
        lock.unlock();
        try {
            leases_.extend(leases, visibility_);  // one call: a batch holds at most kMaxBatch
        } catch (const Error&) {
            // Redis is away: the next period tries again, or the leases run out
        }
        lock.lock();
    }
}

}  // namespace delayq::cli
