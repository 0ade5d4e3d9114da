#include "http/client_watch.hpp"

#include <utility>

namespace delayq::server::http {

void ClientWatch::watch(std::function<void()> on_gone) {
    {
        std::lock_guard lock(mutex_);
        if (disarmed_ || gone_ || on_gone_) return;
        on_gone_ = std::move(on_gone);
    }
    begin_();
}

bool ClientWatch::gone() const {
    std::lock_guard lock(mutex_);
    return gone_;
}

void ClientWatch::disarm() {
    std::function<void()> dropped;
    std::lock_guard lock(mutex_);
    disarmed_ = true;
    dropped = std::move(on_gone_);  // whatever it holds goes now, not with the session
}

void ClientWatch::client_gone() {
    std::function<void()> run;
    {
        std::lock_guard lock(mutex_);
        if (disarmed_ || gone_) return;
        gone_ = true;
        run = std::move(on_gone_);
    }
    if (run) run();
}

void ClientWatch::rearm() {
    std::function<void()> dropped;
    std::lock_guard lock(mutex_);
    disarmed_ = false;
    gone_ = false;
    dropped = std::move(on_gone_);
}

bool ClientWatch::armed() const {
    std::lock_guard lock(mutex_);
    return !disarmed_ && !gone_ && on_gone_ != nullptr;
}

bool SessionWatch::start_read() {
    if (reading_ || !watch_ || !watch_->armed()) return false;
    reading_ = true;
    return true;
}

void SessionWatch::answered() {
    if (watch_) watch_->disarm();
}

bool SessionWatch::wait_for_read(bool close) {
    if (!reading_) return false;
    after_read_ = close ? Next::kClose : Next::kReadNext;
    return true;
}

SessionWatch::Next SessionWatch::read_ended(bool failed) {
    reading_ = false;
    if (after_read_ != Next::kNothing) return std::exchange(after_read_, Next::kNothing);
    if (!failed) return Next::kNothing;
    watch_->client_gone();
    return Next::kClientGone;
}

}  // namespace delayq::server::http
