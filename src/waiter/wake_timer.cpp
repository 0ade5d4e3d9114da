#include "waiter/wake_timer.hpp"

namespace delayq::detail {

void WakeTimer::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    cv_.notify_all();
}

void WakeTimer::schedule(Target& target, Steady::time_point when) {
    std::lock_guard lock(mutex_);
    if (const auto it = where_.find(&target); it != where_.end()) {
        if (it->second->first == when) return;
        queue_.erase(it->second);
        where_.erase(it);
    }
    const bool earliest = queue_.empty() || when < queue_.begin()->first;
    where_.emplace(&target, queue_.emplace(when, &target));
    if (earliest) cv_.notify_one();
}

void WakeTimer::cancel(Target& target) {
    std::unique_lock lock(mutex_);
    if (const auto it = where_.find(&target); it != where_.end()) {
        queue_.erase(it->second);
        where_.erase(it);
    }
    if (std::this_thread::get_id() == thread_id_) return;
    done_cv_.wait(lock, [&] { return calling_ != &target; });
}

std::size_t WakeTimer::scheduled() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

void WakeTimer::run() {
    std::unique_lock lock(mutex_);
    thread_id_ = std::this_thread::get_id();
    while (!stopped_) {
        if (queue_.empty()) {
            cv_.wait(lock);
            continue;
        }
        const auto [when, target] = *queue_.begin();
        if (Steady::now() < when) {
            cv_.wait_until(lock, when);
            continue;
        }
        queue_.erase(queue_.begin());
        where_.erase(target);
        calling_ = target;
        lock.unlock();
        target->on_time();
        lock.lock();
        calling_ = nullptr;
        done_cv_.notify_all();
    }
}

}  // namespace delayq::detail
