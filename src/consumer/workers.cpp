#include "consumer/workers.hpp"

#include <algorithm>
#include <iterator>
#include <variant>

#include "consumer/shared.hpp"
#include "validate.hpp"

namespace delayq::detail {
namespace {

// At most this many deliveries taken at once by a worker whose handlers are fast.
constexpr std::size_t kMaxChunk = 64;
// Handlers slower than this make a worker hand back what it took, report at once and take one
// delivery at a time until its handlers are fast again: a chunk only pays off for fast
// handlers, and must not hold messages behind a slow one.
constexpr auto kChunkBudget = std::chrono::milliseconds(1);

}  // namespace

Completion Worker::handle(const Delivery& delivery) {
    ConsumerShared& s = shared_;
    Completion c;
    c.lease = delivery.lease();
    // Without a backoff of the consumer's own, no delay: the script applies the queue's.
    auto backoff = [&]() -> std::optional<Duration> {
        if (!s.options.backoff) return std::nullopt;
        return s.options.backoff->delay_for(delivery.attempt(),
                                            std::uniform_real_distribution<double>(0.0, 1.0)(rng_));
    };
    try {
        Outcome outcome = s.handler(delivery);
        if (auto* nack = std::get_if<Nack>(&outcome)) {
            c.kind = Completion::Kind::kNack;
            // A delay out of range must not become a request Redis refuses forever.
            c.delay = nack->delay ? nack->delay : backoff();
            if (c.delay) c.delay = std::clamp(*c.delay, Duration(0), Duration(kMaxTimeMs));
            c.error = std::move(nack->error);
        } else if (auto* reject = std::get_if<Reject>(&outcome)) {
            c.kind = Completion::Kind::kReject;
            c.error = std::move(reject->error);
        }
    } catch (const std::exception& e) {
        c.kind = Completion::Kind::kNack;
        c.delay = backoff();
        c.error = e.what();
    } catch (...) {
        c.kind = Completion::Kind::kNack;
        c.delay = backoff();
        c.error = "handler threw a non-std exception";
    }
    return c;
}

std::vector<Delivery> Worker::take_unstarted() {
    std::lock_guard lock(taken_mutex_);
    std::vector<Delivery> out(std::make_move_iterator(taken_.begin()),
                              std::make_move_iterator(taken_.end()));
    taken_.clear();
    shared_.taken_unstarted -= out.size();
    shared_.running -= out.size();
    return out;
}

std::vector<Delivery> Worker::steal() {
    std::lock_guard lock(taken_mutex_);
    const std::size_t n = (taken_.size() + 1) / 2;
    std::vector<Delivery> out(std::make_move_iterator(taken_.end() - static_cast<long>(n)),
                              std::make_move_iterator(taken_.end()));
    for (std::size_t i = 0; i < n; ++i) taken_.pop_back();
    shared_.taken_unstarted -= n;
    shared_.running -= n;
    return out;
}

void Worker::take(std::vector<Delivery> deliveries) {
    std::lock_guard lock(taken_mutex_);
    shared_.taken_unstarted += deliveries.size();
    shared_.running += deliveries.size();
    chunk_began_ = SteadyClock::now();
    for (auto& d : deliveries) taken_.push_back(std::move(d));
}

std::optional<Delivery> Worker::next_taken() {
    std::lock_guard lock(taken_mutex_);
    if (taken_.empty()) return std::nullopt;
    std::optional<Delivery> d(std::move(taken_.front()));
    taken_.pop_front();
    // Inside the lock, so that a thief that found every worker empty also sees 0 here.
    --shared_.taken_unstarted;
    return d;
}

bool Worker::take_work() {
    ConsumerShared& s = shared_;
    if (!s.buffered.empty()) {
        // With fast handlers a lock round trip and a wake-up per message were most of a
        // consumer's CPU: a fast worker takes a large chunk, and other workers are woken only
        // for what it left (see run()). Spreading a fetch thinly over every worker cost a
        // wake-up per few messages. Only after fast handlers: one that turns slow holds the
        // rest of its chunk until an idle worker steals it, or hands it back after the budget.
        const std::size_t n = fast_ ? std::min(s.buffered.size(), kMaxChunk) : 1;
        std::vector<Delivery> chunk;
        for (std::size_t i = 0; i < n; ++i) {
            chunk.push_back(std::move(s.buffered.front()));
            s.buffered.pop_front();
        }
        take(std::move(chunk));
        return true;
    }
    // Only from a worker whose chunk overran the budget: it is blocked in a handler. A fast
    // worker finishes its chunk sooner than a thief could start on it.
    Worker* victim = nullptr;
    const auto overdue = SteadyClock::now() - kChunkBudget;
    for (Worker* w : s.workers) {
        if (w == this) continue;
        std::lock_guard lock(w->taken_mutex_);
        if (!w->taken_.empty() && w->chunk_began_ < overdue) {
            victim = w;
            break;
        }
    }
    if (victim == nullptr) return false;
    take(victim->steal());
    return true;
}

bool Worker::wait_for_work(std::unique_lock<std::mutex>& lock) {
    ConsumerShared& s = shared_;
    for (;;) {
        if (s.stopping) return false;
        if ((!s.buffered.empty() || s.taken_unstarted.load() > 0) && take_work()) return true;
        if (s.taken_unstarted.load() > 0 && !s.watching) {
            // Another worker holds deliveries it has not started, and may block in a handler
            // with nobody awake to steal them: one idle worker looks again after the chunk
            // budget. Only one, so that fast workers' chunks cost no wake-up storm.
            s.watching = true;
            s.workers_cv.wait_for(lock, kChunkBudget);
            s.watching = false;
        } else {
            s.workers_cv.wait(lock);
        }
    }
}

void Worker::run() {
    ConsumerShared& s = shared_;
    std::vector<Completion> done;
    for (;;) {
        {
            std::unique_lock lock(s.mutex);
            if (!wait_for_work(lock)) break;  // stopping
            // Work is left for another worker: wake one, which does the same in turn. Waking
            // one per delivery woke every worker for every fetch. Or this worker holds more than
            // it is starting now and no idle worker watches for a blocked handler: wake one to
            // watch.
            if (!s.buffered.empty() ||
                (s.taken_unstarted.load() > 1 && !s.watching && s.workers.size() > 1)) {
                s.workers_cv.notify_one();
            }
        }
        const auto began = SteadyClock::now();
        std::size_t started = 0;
        while (started == 0 || (SteadyClock::now() - began <= kChunkBudget &&
                                !s.stop_requested.load(std::memory_order_relaxed))) {
            std::optional<Delivery> d = next_taken();
            if (!d) break;
            ++started;
            done.push_back(handle(*d));
        }
        const auto elapsed = SteadyClock::now() - began;
        if (started > 0) s.record_handler_time(elapsed, started);
        fast_ = elapsed <= kChunkBudget;
        s.handlers_fast.store(fast_, std::memory_order_relaxed);
        bool stopping = false;
        bool handed_back = false;
        {
            std::lock_guard lock(s.mutex);
            s.running -= started;
            for (auto& c : done) {
                s.mark_completing(c.lease);
                s.completions.push_back(std::move(c));
            }
            stopping = s.stopping;
            // Taken but not started, after a slow handler: back to the buffer for idle workers.
            // (Once stopping, the stop sequence has released them already.)
            std::vector<Delivery> rest = take_unstarted();
            for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
                s.buffered.push_front(std::move(*it));
                handed_back = true;
            }
        }
        done.clear();
        s.completer_cv.notify_one();
        s.dispatcher_cv.notify_one();
        if (handed_back) s.workers_cv.notify_all();
        // Only the stop sequence waits for running handlers; waking it (and the extender, which
        // shares the condition) for every message would cost a context switch each.
        if (stopping) s.lifecycle_cv.notify_all();
    }
}

}  // namespace delayq::detail
