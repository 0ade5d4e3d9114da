#include "consumer/completion_queue.hpp"

#include <iterator>

namespace delayq::detail {

void CompletionQueue::push(Completion completion) {
    {
        std::lock_guard lock(mutex_);
        queued_.push_back(std::move(completion));
    }
    cv_.notify_one();
}

void CompletionQueue::push(std::vector<Completion>& completions) {
    if (completions.empty()) return;
    {
        std::lock_guard lock(mutex_);
        for (auto& c : completions) queued_.push_back(std::move(c));
    }
    completions.clear();
    cv_.notify_one();
}

bool CompletionQueue::take(std::vector<Completion>& batch) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return closed_ || !queued_.empty(); });
    if (queued_.empty()) return false;  // closed and drained
    batch.assign(std::make_move_iterator(queued_.begin()), std::make_move_iterator(queued_.end()));
    queued_.clear();
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
