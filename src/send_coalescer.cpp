#include "send_coalescer.hpp"

#include <vector>

#include "delayq/error.hpp"
#include "queue_core.hpp"
#include "validate.hpp"

namespace delayq::detail {

struct SendCoalescer::Waiter {
    MessageRef ref;
    std::optional<SendResult> result;
    std::exception_ptr error;
    bool done = false;
};

SendResult SendCoalescer::send(std::string_view payload, const SendOptions& options) {
    Waiter me{MessageRef{payload, &options}, std::nullopt, nullptr, false};
    std::unique_lock lock(mutex_);
    queued_.push_back(&me);
    while (!me.done) {
        if (!leading_) {
            lead(lock);
        } else {
            done_cv_.wait(lock);
        }
    }
    if (me.error) std::rethrow_exception(me.error);
    return std::move(*me.result);
}

void SendCoalescer::lead(std::unique_lock<std::mutex>& lock) {
    leading_ = true;
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
    for (auto* w : batch) w->done = true;
    leading_ = false;
    done_cv_.notify_all();
}

}  // namespace delayq::detail
