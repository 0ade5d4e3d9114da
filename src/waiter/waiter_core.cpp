#include "waiter/waiter_core.hpp"

#include "validate.hpp"

namespace delayq::detail {
namespace {

Duration checked_idle_check(const WaiterOptions& options) {
    validate_idle_check(options.idle_check);
    return options.idle_check;
}

}  // namespace

WaiterCore::WaiterCore(std::shared_ptr<QueueCore> core, const WaiterOptions& options)
    : core_(std::move(core)), clock_(checked_idle_check(options)) {}

WaiterCore::~WaiterCore() { stop(); }

void WaiterCore::start() {
    std::lock_guard lock(mutex_);
    if (started_ || stopped_) return;
    started_ = true;
    clock_.start();
    subscriber_.start();
}

void WaiterCore::stop() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    // The clock first: waits end at once, while the subscriber may take up to its stop check.
    clock_.request_stop();
    subscriber_.request_stop();
    if (!started_) return;
    subscriber_.join();
    clock_.join();
}

WaiterStats WaiterCore::stats() const {
    return WaiterStats{clock_.epoch(), subscriber_.signals(), subscriber_.subscriptions(),
                       subscriber_.redis_errors()};
}

}  // namespace delayq::detail
