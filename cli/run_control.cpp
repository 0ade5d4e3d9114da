#include "run_control.hpp"

namespace delayq::cli {

RunControl::RunControl(std::optional<std::size_t> max, std::size_t concurrency,
                       std::optional<std::chrono::milliseconds> idle_timeout)
    : max_(max), concurrency_(concurrency), idle_timeout_(idle_timeout) {}

void RunControl::set_stop(std::function<void()> stop) { stop_ = std::move(stop); }

bool RunControl::begin() {
    bool reached = false;
    {
        std::lock_guard lock(mutex_);
        if (max_ && claimed_ >= *max_) return false;
        ++claimed_;
        ++active_;
        last_activity_ = Clock::now();
        reached = max_ && claimed_ == *max_;
    }
    if (reached) request_stop();
    return true;
}

void RunControl::end() {
    std::unique_lock lock(mutex_);
    --active_;
    last_activity_ = Clock::now();
    cv_.notify_all();  // the idle timer restarts from now
    if (max_) {
        cv_.wait(lock, [&] { return stopped_ || concurrency_ + returned_ + 1 <= *max_; });
    }
    ++returned_;
}

void RunControl::request_stop() {
    {
        std::lock_guard lock(mutex_);
        if (stop_requested_) return;
        stop_requested_ = true;
    }
    // Outside the lock: Consumer::stop takes the consumer's own lock.
    if (stop_) stop_();
    std::lock_guard lock(mutex_);
    stopped_ = true;
    cv_.notify_all();
}

void RunControl::wait() {
    std::unique_lock lock(mutex_);
    while (!stop_requested_) {
        if (idle_timeout_ && active_ == 0) {
            const auto deadline = last_activity_ + *idle_timeout_;
            if (Clock::now() >= deadline) break;
            cv_.wait_until(lock, deadline);
        } else {
            cv_.wait(lock);
        }
    }
    lock.unlock();
    request_stop();
}

std::size_t RunControl::handled() const {
    std::lock_guard lock(mutex_);
    return claimed_;
}

}  // namespace delayq::cli
