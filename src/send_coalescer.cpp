#include "send_coalescer.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>

#include "delayq/error.hpp"
#include "log.hpp"
#include "send_durability.hpp"
#include "send_pipeline.hpp"
#include "validate.hpp"

namespace delayq::detail {

// One queued message. A blocked caller's lives on its stack, and it waits on its own condition,
// so that the end of a call wakes only the callers it served and the one promoted to lead next:
// with 64 senders, waking all of them per call was most of a send's client CPU.
struct SendCoalescer::Entry : SendSlot {
    bool async = false;  // an AsyncEntry
    bool done = false;
    bool lead = false;      // promoted: send what is queued
    bool may_wait = false;  // due late enough to wait for company (QueueOptions::send_linger)
    std::chrono::steady_clock::time_point queued_at{};
    std::condition_variable cv;
};

namespace {

// How far ahead of now a message is due, by the local clock: enough to tell whether a few
// milliseconds' wait can matter. In milliseconds throughout: in system_clock's nanoseconds a
// due time past 2262 (which the API accepts up to 9999) would overflow.
Duration due_ahead(const SendOptions& options) {
    if (!options.at) return options.delay;
    return *options.at - std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

// A message may wait for company when it is due at least this many lingers ahead.
constexpr int kLingersAhead = 10;

}  // namespace

// An asynchronous send owns its message; the coalescer owns the entry until it is answered,
// through the promise, or the callback when there is one.
struct SendCoalescer::AsyncEntry : Entry {
    std::string payload;
    SendOptions options;
    std::promise<SendResult> promise;
    std::function<void(std::exception_ptr, SendResult)> done;

    void answer() {
        if (!done) {
            if (result) {
                promise.set_value(std::move(*result));
            } else {
                promise.set_exception(error);
            }
            return;
        }
        try {
            if (result) {
                done(nullptr, std::move(*result));
            } else {
                done(error, SendResult{});
            }
        } catch (const std::exception& e) {
            log().error("a send_async callback threw; ignored: {}", e.what());
        } catch (...) {
            log().error("a send_async callback threw a non-exception; ignored");
        }
    }
};

SendCoalescer::~SendCoalescer() {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    if (!flushing_) return;
    if (scheduled_) flusher_->expedite();  // what waits for company goes now
    if (flusher_->on_this_thread()) {
        // A send_async callback (or what it captured) held the last copy of the Queue: waiting
        // here would wait for this very thread. Unsent messages must not vanish silently.
        log().error(
            "queue {}: the last copy of a Queue with sends queued was destroyed on the thread "
            "that sends them (in a send_async callback), which cannot wait for itself; aborting",
            target_.queue);
        std::terminate();
    }
    drained_cv_.wait(lock, [&] { return !flushing_; });
}

SendResult SendCoalescer::send(std::string_view payload, const SendOptions& options) {
    Entry me;
    me.ref = send_codec::MessageRef{payload, &options};
    std::unique_lock lock(mutex_);
    queued_.push_back(&me);
    ++must_go_;
    if (flushing_) {
        schedule();
    } else if (leaders_ < kMaxLeaders) {
        ++leaders_;
        me.lead = true;
    }
    while (!me.done) {
        if (me.lead) {
            me.lead = false;
            lead(lock);
        } else {
            me.cv.wait(lock);
        }
    }
    if (me.error) std::rethrow_exception(me.error);
    return std::move(*me.result);
}

std::future<SendResult> SendCoalescer::send_async(std::string_view payload,
                                                  const SendOptions& options) {
    auto entry = std::make_unique<AsyncEntry>();
    entry->payload.assign(payload);
    entry->options = options;
    std::future<SendResult> future = entry->promise.get_future();
    enqueue_async(std::move(entry));
    return future;
}

void SendCoalescer::send_async(std::string_view payload, const SendOptions& options,
                               std::function<void(std::exception_ptr, SendResult)> done) {
    auto entry = std::make_unique<AsyncEntry>();
    entry->payload.assign(payload);
    entry->options = options;
    entry->done = std::move(done);
    enqueue_async(std::move(entry));
}

void SendCoalescer::enqueue_async(std::unique_ptr<AsyncEntry> entry) {
    entry->async = true;
    entry->ref = send_codec::MessageRef{entry->payload, &entry->options};
    entry->may_wait =
        linger_ > Duration::zero() && due_ahead(entry->options) >= kLingersAhead * linger_;
    entry->queued_at = std::chrono::steady_clock::now();
    SendFlusher* flusher = nullptr;
    {
        std::lock_guard lock(mutex_);
        flusher = flusher_;
    }
    if (flusher == nullptr) {
        try {
            flusher = &hub_.flusher_for(target_.pool(), is_durable(target_.durability));
        } catch (...) {
            // No node to send to (a list of servers that are not one cluster), or no thread:
            // the message's answer says so, as any failure to send.
            entry->error = std::current_exception();
            entry->answer();
            return;
        }
    }
    std::lock_guard lock(mutex_);
    if (flusher_ == nullptr) flusher_ = flusher;
    const bool must_go = !entry->may_wait;
    if (must_go) ++must_go_;
    queued_.push_back(entry.release());
    flushing_ = true;
    // Enough queued for a call of its own ends a wait for company too (ready_at): without the
    // signal, a producer with 64 sends in flight waited out the linger at every lull.
    schedule(must_go || queued_.size() == kMinSplit);
}

void SendCoalescer::schedule(bool urgent) {
    if (scheduled_) {
        if (urgent) flusher_->expedite();
        return;
    }
    scheduled_ = true;
    flusher_->schedule(*this);
}

std::chrono::steady_clock::time_point SendCoalescer::ready_at() noexcept {
    std::lock_guard lock(mutex_);
    // Enough for a call of its own, or something that must go: nothing waits.
    if (queued_.empty() || must_go_ > 0 || stopping_ || queued_.size() >= kMinSplit) {
        return std::chrono::steady_clock::time_point::min();
    }
    return queued_.front()->queued_at + linger_;
}

void SendCoalescer::release_if_drained() {
    // Not scheduled means nothing queued: whatever is queued while flushing_ schedules the line.
    if (!flushing_ || scheduled_ || flusher_calls_ > 0) return;
    flushing_ = false;
    drained_cv_.notify_all();
}

SendCoalescer::Batch SendCoalescer::take_batch(std::size_t limit) {
    Batch batch;
    while (!queued_.empty() && batch.size() < limit) {
        Entry* e = queued_.front();
        queued_.pop_front();
        if (!e->may_wait) --must_go_;
        if (e->lead) {
            // Promoted but not running yet: served here instead, so its turn to lead is void.
            e->lead = false;
            --leaders_;
        }
        batch.push_back(e);
    }
    return batch;
}

void SendCoalescer::answer(const Batch& batch, std::unique_lock<std::mutex>& lock) {
    Batch blocked;
    // Newest first: a thread that waits for its oldest future then finds the rest of the batch
    // answered too, where in queue order it woke for each one, only to find the next not yet
    // answered (half a context switch per message in the bench's single_async).
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
        auto* e = static_cast<Entry*>(*it);
        if (!e->async) {
            blocked.push_back(e);
            continue;
        }
        std::unique_ptr<AsyncEntry> owned(static_cast<AsyncEntry*>(e));
        owned->answer();
    }
    lock.lock();
    // Notified with the lock held: a woken caller returns and destroys its Entry at once.
    for (SendSlot* s : blocked) {
        auto* e = static_cast<Entry*>(s);
        e->done = true;
        e->cv.notify_one();
    }
}

void SendCoalescer::lead(std::unique_lock<std::mutex>& lock) {
    // While the flusher has work it sends everything queued; a call of our own could overtake
    // one of its calls.
    Batch batch = flushing_ ? Batch{} : take_batch();
    if (!batch.empty()) {
        lock.unlock();
        try {
            SendPipeline call(target_.pool());
            call.start(target_, batch);
            call.finish();
        } catch (...) {
            // No node to send to (a list of servers that are not one cluster): each message's
            // answer says so.
            for (SendSlot* slot : batch) {
                if (!slot->result && !slot->error) slot->error = std::current_exception();
            }
        }
        answer(batch, lock);
    }
    --leaders_;
    if (!flushing_ && !queued_.empty() && leaders_ < kMaxLeaders && !queued_.front()->lead) {
        ++leaders_;
        queued_.front()->lead = true;
        queued_.front()->cv.notify_one();
    }
}

void SendCoalescer::fail_queued(const std::exception_ptr& error,
                                std::unique_lock<std::mutex>& lock) {
    while (!queued_.empty()) {
        Batch batch = take_batch();
        for (SendSlot* s : batch) s->error = error;
        lock.unlock();
        answer(batch, lock);
    }
}

SendFlusher::Line::Taken SendCoalescer::take(bool idle) noexcept {
    std::lock_guard lock(mutex_);
    // Nothing in flight: half of what is queued, and the rest as a second call right behind
    // it. Redis then runs the second while the flusher answers the first and their senders
    // queue more, rather than idling through all of that.
    std::size_t limit = kMaxBatch;
    if (idle && queued_.size() >= kMinSplit) limit = std::min(kMaxBatch, (queued_.size() + 1) / 2);
    Taken taken;
    taken.slots = take_batch(limit);
    if (!taken.slots.empty()) ++flusher_calls_;
    taken.more = !queued_.empty();
    if (!taken.more) {
        scheduled_ = false;
        release_if_drained();
    }
    return taken;
}

void SendCoalescer::finished(SendPipeline::Finished done) noexcept {
    std::unique_lock lock(mutex_, std::defer_lock);
    answer(done.slots, lock);
    --flusher_calls_;
    if (done.failure && stopping_ && !queued_.empty()) {
        // Closing: Redis failed a call, so it would most likely fail the rest too, each after
        // its own timeout. The same failure answers them now.
        log().warn("queue {}: closing with asynchronous sends unsent; they fail", target_.queue);
        fail_queued(done.failure, lock);
    }
    release_if_drained();
}

}  // namespace delayq::detail
