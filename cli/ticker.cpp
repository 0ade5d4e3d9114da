#include "ticker.hpp"

#include <utility>

namespace delayq::cli {

Ticker::Ticker(std::chrono::milliseconds every, std::function<void()> tick)
    : every_(every), tick_(std::move(tick)) {
    thread_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!cv_.wait_for(lock, every_, [this] { return done_; })) tick_();
    });
}

Ticker::~Ticker() {
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    tick_();
}

}  // namespace delayq::cli
