#include "send_coalescer.hpp"

#include <vector>

#include "delayq/error.hpp"
#include "queue_core.hpp"
#include "validate.hpp"

namespace delayq::detail {

// One waiting caller. Each has its own condition, so that the end of a call wakes only the
// callers it served and the one promoted to lead next: with 64 senders, waking all of them per
// call was most of a send's client CPU.
struct SendCoalescer::Waiter {
    MessageRef ref;
    std::optional<SendResult> result;
    std::exception_ptr error;
    bool done = false;
    bool lead = false;  // promoted: send what is queued
    std::condition_variable cv;
};

SendResult SendCoalescer::send(std::string_view payload, const SendOptions& options) {
    Waiter me{MessageRef{payload, &options}, std::nullopt, nullptr, false, false, {}};
    std::unique_lock lock(mutex_);
    queued_.push_back(&me);
    if (leaders_ < kMaxLeaders) {
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

void SendCoalescer::lead(std::unique_lock<std::mutex>& lock) {
    std::vector<Waiter*> batch;
    while (!queued_.empty() && batch.size() < kMaxBatch) {
        batch.push_back(queued_.front());
        queued_.pop_front();
    }
    lock.unlock();
    std::vector<MessageRef> refs;
    refs.reserve(batch.size());
    for (auto* w : batch) refs.push_back(w->ref);
    try {
        auto conn = core_.client().pool().acquire();
        try {
            auto results = core_.send(*conn, refs);
            for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
        } catch (const InvalidArgument&) {
            // Only the script's own checks get here (an expiry before an absolute due time): one
            // message fails a whole batch, so each goes alone to get its own answer.
            if (batch.size() == 1) throw;
            for (auto* w : batch) {
                try {
                    w->result = core_.send(*conn, std::span(&w->ref, 1)).front();
                } catch (const InvalidArgument&) {
                    w->error = std::current_exception();
                }
            }
        }
    } catch (...) {
        for (auto* w : batch) {
            if (!w->result && !w->error) w->error = std::current_exception();
        }
    }
    lock.lock();
    // Notified with the lock held: a woken caller returns and destroys its Waiter at once.
    for (auto* w : batch) {
        w->done = true;
        w->cv.notify_one();
    }
    --leaders_;
    if (!queued_.empty() && leaders_ < kMaxLeaders && !queued_.front()->lead) {
        ++leaders_;
        queued_.front()->lead = true;
        queued_.front()->cv.notify_one();
    }
}

}  // namespace delayq::detail
