#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/options.hpp"

namespace delayq::detail {

// Handlers slower than this make a worker hand back what it took, and take one delivery at a
// time until its handlers are fast again: a chunk only pays off for fast handlers, and must not
// hold messages behind a slow one.
constexpr auto kChunkBudget = std::chrono::milliseconds(1);

// Leased deliveries no handler started yet, and the prefetch policy that says how many to hold:
// the fetch loop adds, workers take. Each worker has a slot for the deliveries it took at once
// (a chunk) and starts one by one; an idle worker steals from a slot whose owner is blocked in
// a slow handler. Thread-safe.
class DeliveryBuffer {
  public:
    // `room_freed` is called (without a lock held) when a worker finished handlers.
    DeliveryBuffer(const ConsumerOptions& options, std::function<void()> room_freed);

    // For the fetch loop: how many deliveries it may add now (at most max_batch).
    std::size_t room() const;
    void add(std::vector<Delivery>& deliveries);  // moves them in, wakes workers

    // For worker `slot`: blocks until it took work (true) or the buffer stopped (false).
    bool take(std::size_t slot);
    // The next delivery the worker took, to start now; none when its slot is empty.
    std::optional<Delivery> next(std::size_t slot);
    // The worker started `started` deliveries, which took `elapsed`: they leave `running`, and
    // what it took but did not start goes back to the buffer for others.
    void finished(std::size_t slot, std::size_t started, std::chrono::nanoseconds elapsed);
    // Readable without a lock: a worker checks it between the deliveries of a chunk.
    bool stopping() const { return stop_requested_.load(std::memory_order_relaxed); }

    // For the lease extender: a delivery whose lease was lost is someone else's now.
    void drop(const Lease& lease);

    // For the stop sequence: no more handler starts.
    void request_stop();
    // Everything buffered or taken and not started, to hand back.
    std::vector<Delivery> take_unstarted();
    // Until no handler runs (true) or the deadline (false).
    bool wait_idle(std::chrono::steady_clock::time_point deadline);
    std::size_t running() const;

  private:
    struct Slot {
        // Its own mutex, so that starting each delivery does not contend for the buffer's; the
        // stop sequence and thieves take the buffer's then a slot's, a worker only ever one.
        std::mutex mutex;
        std::deque<Delivery> taken;
        std::chrono::steady_clock::time_point chunk_began;  // when taken was last filled
        bool fast = false;  // its owner's last chunk ran within the budget (owner only)
    };

    std::size_t prefetch() const;
    // With mutex_ held: a share of the buffer, or of a blocked worker's slot, into `slot`.
    bool take_work(std::size_t slot);
    void fill(Slot& slot, std::vector<Delivery> deliveries);  // with mutex_ held
    std::vector<Delivery> empty_slot(Slot& slot);             // with mutex_ held
    std::vector<Delivery> steal_from(Slot& slot);             // with mutex_ held
    void record_handler_time(std::chrono::nanoseconds elapsed, std::size_t started);

    const ConsumerOptions& options_;
    const std::function<void()> room_freed_;
    std::vector<std::unique_ptr<Slot>> slots_;  // one per worker

    mutable std::mutex mutex_;
    std::condition_variable workers_cv_;  // a delivery buffered, stop
    std::condition_variable idle_cv_;     // handlers finished while stopping
    std::deque<Delivery> buffered_;
    // Handlers running, and deliveries a worker took but has not started.
    std::size_t running_ = 0;
    // Deliveries in slots, not started: an idle worker steals while this is not 0.
    std::atomic<std::size_t> taken_unstarted_{0};
    bool watching_ = false;  // an idle worker wakes after the chunk budget to steal
    bool stopping_ = false;
    std::atomic<bool> stop_requested_{false};  // stopping_, readable without the mutex

    // The last chunk a worker ran was fast: add() then wakes one worker, which takes a large
    // chunk and wakes another only for what it left; after slow handlers, one per delivery.
    std::atomic<bool> handlers_fast_{false};
    // Mean time of one handler call, smoothed; 0 until one has run.
    std::atomic<std::int64_t> handler_ns_{0};
};

}  // namespace delayq::detail
