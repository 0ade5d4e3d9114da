#include "consumer/completion_queue.hpp"

#include <chrono>
#include <iterator>

#include "shared_constants.hpp"

namespace delayq::detail {

void CompletionQueue::push(Completion completion) {
    {
        std::lock_guard lock(mutex_);
        if (completion.kind != Completion::Kind::kAck) ++not_acks_;
        queued_.push_back(std::move(completion));
    }
    cv_.notify_one();
}

void CompletionQueue::push(std::vector<Completion>& completions) {
    if (completions.empty()) return;
    {
        std::lock_guard lock(mutex_);
        for (auto& c : completions) {
            if (c.kind != Completion::Kind::kAck) ++not_acks_;
            queued_.push_back(std::move(c));
        }
    }
    completions.clear();
    cv_.notify_one();
}

bool CompletionQueue::take(std::vector<Completion>& batch, Duration linger) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return closed_ || !queued_.empty(); });
    if (queued_.empty()) return false;  // closed and drained
    if (linger > Duration::zero()) {
        // An ack delays no delivery, so it may wait for company; the first to arrive sets the
        // deadline, so none waits longer than `linger`.
        const auto deadline = std::chrono::steady_clock::now() + linger;
        cv_.wait_until(lock, deadline,
                       [&] { return closed_ || not_acks_ > 0 || queued_.size() >= kMaxBatch; });
    }
    batch.assign(std::make_move_iterator(queued_.begin()), std::make_move_iterator(queued_.end()));
    queued_.clear();
    not_acks_ = 0;
    return true;
}

void CompletionQueue::close() {
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
    }
    cv_.notify_one();
}

}  // namespace delayq::detail
