#include "consumer/delivery_buffer.hpp"

#include <algorithm>
#include <iterator>

namespace delayq::detail {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How much work an automatic prefetch holds beyond the running handlers (ConsumerOptions).
constexpr std::chrono::nanoseconds kAutoPrefetchWindow = std::chrono::milliseconds(10);
// At most this many deliveries taken at once by a worker whose handlers are fast.
constexpr std::size_t kMaxChunk = 64;

}  // namespace

DeliveryBuffer::DeliveryBuffer(const ConsumerOptions& options, std::function<void()> room_freed)
    : options_(options), room_freed_(std::move(room_freed)) {
    for (std::size_t i = 0; i < options_.concurrency; ++i) {
        slots_.push_back(std::make_unique<Slot>());
    }
}

std::size_t DeliveryBuffer::room() const {
    std::lock_guard lock(mutex_);
    const std::size_t busy = buffered_.size() + running_;
    const std::size_t limit = options_.concurrency + prefetch();
    return busy >= limit ? 0 : std::min(limit - busy, options_.max_batch);
}

// The prefetch option, or when unset what the handlers finish in kAutoPrefetchWindow at their
// measured speed: a message held beyond the running handlers waits about that long at most,
// and a fetch of many messages costs Redis a fraction of a fetch per message.
std::size_t DeliveryBuffer::prefetch() const {
    if (options_.prefetch) return *options_.prefetch;
    const std::int64_t ns = handler_ns_.load(std::memory_order_relaxed);
    if (ns <= 0) return 0;
    const auto n =
        static_cast<std::size_t>(kAutoPrefetchWindow.count() / ns) * options_.concurrency;
    return std::min(n, options_.max_batch);
}

void DeliveryBuffer::add(std::vector<Delivery>& deliveries) {
    const std::size_t got = deliveries.size();
    if (got == 0) return;
    {
        std::lock_guard lock(mutex_);
        for (auto& d : deliveries) buffered_.push_back(std::move(d));
    }
    deliveries.clear();
    if (handlers_fast_.load(std::memory_order_relaxed)) {
        workers_cv_.notify_one();
    } else {
        for (std::size_t i = 0; i < got; ++i) workers_cv_.notify_one();
    }
}

void DeliveryBuffer::fill(Slot& slot, std::vector<Delivery> deliveries) {
    std::lock_guard lock(slot.mutex);
    taken_unstarted_ += deliveries.size();
    running_ += deliveries.size();
    slot.chunk_began = SteadyClock::now();
    for (auto& d : deliveries) slot.taken.push_back(std::move(d));
}

std::vector<Delivery> DeliveryBuffer::empty_slot(Slot& slot) {
    std::lock_guard lock(slot.mutex);
    std::vector<Delivery> out(std::make_move_iterator(slot.taken.begin()),
                              std::make_move_iterator(slot.taken.end()));
    slot.taken.clear();
    taken_unstarted_ -= out.size();
    running_ -= out.size();
    return out;
}

std::vector<Delivery> DeliveryBuffer::steal_from(Slot& slot) {
    std::lock_guard lock(slot.mutex);
    const std::size_t n = (slot.taken.size() + 1) / 2;
    std::vector<Delivery> out(std::make_move_iterator(slot.taken.end() - static_cast<long>(n)),
                              std::make_move_iterator(slot.taken.end()));
    for (std::size_t i = 0; i < n; ++i) slot.taken.pop_back();
    taken_unstarted_ -= n;
    running_ -= n;
    return out;
}

bool DeliveryBuffer::take_work(std::size_t slot) {
    Slot& mine = *slots_[slot];
    if (!buffered_.empty()) {
        // With fast handlers a lock round trip and a wake-up per message were most of a
        // consumer's CPU: a fast worker takes a large chunk, and other workers are woken only
        // for what it left (see take()). Spreading a fetch thinly over every worker cost a
        // wake-up per few messages. Only after fast handlers: one that turns slow holds the
        // rest of its chunk until an idle worker steals it, or hands it back after the budget.
        const std::size_t n = mine.fast ? std::min(buffered_.size(), kMaxChunk) : 1;
        std::vector<Delivery> chunk;
        for (std::size_t i = 0; i < n; ++i) {
            chunk.push_back(std::move(buffered_.front()));
            buffered_.pop_front();
        }
        fill(mine, std::move(chunk));
        return true;
    }
    // Only from a worker whose chunk overran the budget: it is blocked in a handler. A fast
    // worker finishes its chunk sooner than a thief could start on it.
    const auto overdue = SteadyClock::now() - kChunkBudget;
    for (auto& other : slots_) {
        if (other.get() == &mine) continue;
        bool blocked = false;
        {
            std::lock_guard lock(other->mutex);
            blocked = !other->taken.empty() && other->chunk_began < overdue;
        }
        if (blocked) {
            fill(mine, steal_from(*other));
            return true;
        }
    }
    return false;
}

bool DeliveryBuffer::take(std::size_t slot) {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (stopping_) return false;
        if ((!buffered_.empty() || taken_unstarted_.load() > 0) && take_work(slot)) break;
        if (taken_unstarted_.load() > 0 && !watching_) {
            // Another worker holds deliveries it has not started, and may block in a handler
            // with nobody awake to steal them: one idle worker looks again after the chunk
            // budget. Only one, so that fast workers' chunks cost no wake-up storm.
            watching_ = true;
            workers_cv_.wait_for(lock, kChunkBudget);
            watching_ = false;
        } else {
            workers_cv_.wait(lock);
        }
    }
    // Work is left for another worker: wake one, which does the same in turn. Waking one per
    // delivery woke every worker for every fetch. Or this worker holds more than it is starting
    // now and no idle worker watches for a blocked handler: wake one to watch.
    if (!buffered_.empty() || (taken_unstarted_.load() > 1 && !watching_ && slots_.size() > 1)) {
        workers_cv_.notify_one();
    }
    return true;
}

std::optional<Delivery> DeliveryBuffer::next(std::size_t slot) {
    Slot& mine = *slots_[slot];
    std::lock_guard lock(mine.mutex);
    if (mine.taken.empty()) return std::nullopt;
    std::optional<Delivery> d(std::move(mine.taken.front()));
    mine.taken.pop_front();
    // Inside the lock, so that a thief that found every slot empty also sees 0 here.
    --taken_unstarted_;
    return d;
}

// A smoothed mean per handler, for prefetch(). Workers update it without a lock; a lost update
// only delays the mean by one chunk.
void DeliveryBuffer::record_handler_time(std::chrono::nanoseconds elapsed, std::size_t started) {
    const std::int64_t per =
        std::max<std::int64_t>(1, elapsed.count() / static_cast<std::int64_t>(started));
    const std::int64_t old = handler_ns_.load(std::memory_order_relaxed);
    handler_ns_.store(old == 0 ? per : old + (per - old) / 4, std::memory_order_relaxed);
}

void DeliveryBuffer::finished(std::size_t slot, std::size_t started,
                              std::chrono::nanoseconds elapsed) {
    Slot& mine = *slots_[slot];
    if (started > 0) record_handler_time(elapsed, started);
    mine.fast = elapsed <= kChunkBudget;
    handlers_fast_.store(mine.fast, std::memory_order_relaxed);
    bool stopping = false;
    bool handed_back = false;
    {
        std::lock_guard lock(mutex_);
        running_ -= started;
        stopping = stopping_;
        // Taken but not started, after a slow handler: back to the buffer for idle workers.
        // (Once stopping, the stop sequence has taken them already.)
        std::vector<Delivery> rest = empty_slot(mine);
        for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
            buffered_.push_front(std::move(*it));
            handed_back = true;
        }
    }
    room_freed_();
    if (handed_back) workers_cv_.notify_all();
    // Only the stop sequence waits for running handlers; waking it for every message would
    // cost a context switch each.
    if (stopping) idle_cv_.notify_all();
}

void DeliveryBuffer::drop(const Lease& lease) {
    std::lock_guard lock(mutex_);
    std::erase_if(buffered_, [&](const Delivery& d) { return d.lease() == lease; });
}

void DeliveryBuffer::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        stop_requested_.store(true, std::memory_order_relaxed);
    }
    workers_cv_.notify_all();
}

std::vector<Delivery> DeliveryBuffer::take_unstarted() {
    std::lock_guard lock(mutex_);
    std::vector<Delivery> out(std::make_move_iterator(buffered_.begin()),
                              std::make_move_iterator(buffered_.end()));
    buffered_.clear();
    for (auto& slot : slots_) {
        for (auto& d : empty_slot(*slot)) out.push_back(std::move(d));
    }
    return out;
}

bool DeliveryBuffer::wait_idle(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_until(lock, deadline, [&] { return running_ == 0; });
}

std::size_t DeliveryBuffer::running() const {
    std::lock_guard lock(mutex_);
    return running_;
}

}  // namespace delayq::detail
