#include "send_coalescer.hpp"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string>
#include <system_error>

#include "delayq/error.hpp"
#include "log.hpp"
#include "send_pipeline.hpp"
#include "validate.hpp"

namespace delayq::detail {

// One queued message. A blocked caller's lives on its stack, and it waits on its own condition,
// so that the end of a call wakes only the callers it served and the one promoted to lead next:
// with 64 senders, waking all of them per call was most of a send's client CPU.
struct SendCoalescer::Entry : SendSlot {
    bool async = false;  // an AsyncEntry
    bool done = false;
    bool lead = false;  // promoted: send what is queued
    std::condition_variable cv;
};

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
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    flusher_cv_.notify_one();
    if (flusher_.joinable()) flusher_.join();
}

SendResult SendCoalescer::send(std::string_view payload, const SendOptions& options) {
    Entry me;
    me.ref = send_codec::MessageRef{payload, &options};
    std::unique_lock lock(mutex_);
    queued_.push_back(&me);
    if (leaders_ < kMaxLeaders && !flushing_) {
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
    std::unique_lock lock(mutex_);
    if (!flusher_.joinable()) {
        try {
            flusher_ = std::thread([this] { flush_loop(); });
        } catch (const std::system_error& e) {
            throw Error(std::string("cannot start the thread that sends asynchronously: ") +
                        e.what());
        }
    }
    queued_.push_back(entry.release());
    if (!flushing_) {
        flushing_ = true;
        lock.unlock();
        flusher_cv_.notify_one();
    }
}

SendCoalescer::Batch SendCoalescer::take_batch(std::size_t limit) {
    Batch batch;
    while (!queued_.empty() && batch.size() < limit) {
        Entry* e = queued_.front();
        queued_.pop_front();
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
        {
            SendPipeline call(target_);
            call.start(batch);
            call.finish();
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

void SendCoalescer::flush_loop() {
    // A write to a connection the server has closed raises SIGPIPE, which would end the whole
    // process. Blocked in this thread, it stays pending here and the write fails with EPIPE.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

    SendPipeline pipe(target_);
    std::unique_lock lock(mutex_);
    for (;;) {
        while (!pipe.full() && !queued_.empty()) {
            // Nothing in flight: half of what is queued, and the rest as a second call right
            // behind it. Redis then runs the second while this thread answers the first and
            // their senders queue more, rather than idling through all of that.
            std::size_t limit = kMaxBatch;
            if (pipe.empty() && queued_.size() >= kMinSplit) {
                limit = std::min(kMaxBatch, (queued_.size() + 1) / 2);
            }
            Batch batch = take_batch(limit);
            lock.unlock();
            pipe.start(std::move(batch));
            lock.lock();
        }
        if (pipe.empty()) {
            // Nothing queued either: blocked callers lead their own calls again.
            flushing_ = false;
            lock.unlock();
            pipe.release();
            lock.lock();
            if (stopping_ && queued_.empty()) return;
            flusher_cv_.wait(lock, [&] { return flushing_ || stopping_; });
            continue;
        }
        lock.unlock();
        SendPipeline::Finished done = pipe.finish();
        answer(done.slots, lock);
        if (done.failure && stopping_ && !queued_.empty()) {
            // Closing: Redis failed a call, so it would most likely fail the rest too, each after
            // its own timeout. The same failure answers them now.
            log().warn("queue {}: closing with asynchronous sends unsent; they fail",
                       target_.queue);
            fail_queued(done.failure, lock);
        }
    }
}

}  // namespace delayq::detail
