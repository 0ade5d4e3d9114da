#include "waiter/waiter_core.hpp"

#include "client_core.hpp"
#include "keys.hpp"
#include "validate.hpp"
#include "waiter/wake_hub.hpp"

namespace delayq::detail {
namespace {

Duration checked_idle_check(const WaiterOptions& options) {
    validate_idle_check(options.idle_check);
    return options.idle_check;
}

}  // namespace

WaiterCore::WaiterCore(std::shared_ptr<QueueCore> core, const WaiterOptions& options)
    : core_(std::move(core)),
      channel_(make_keys(core_->name())[kWakeChannel]),
      clock_(checked_idle_check(options)) {}

WaiterCore::~WaiterCore() { stop(); }

void WaiterCore::start() {
    std::lock_guard lock(mutex_);
    if (started_ || stopped_) return;
    WakeHub& hub = core_->client().wake_hub();
    started_ = true;
    clock_.start(hub.timer());
    hub_ = &hub;
    hub.add(channel_, listener_);
}

void WaiterCore::stop() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    // The clock first: waits end at once and no callback runs once it returned.
    clock_.stop();
    if (hub_ != nullptr) hub_->remove(channel_, listener_);
}

WaiterStats WaiterCore::stats() const {
    return WaiterStats{clock_.epoch(), listener_.signals.load(), listener_.subscriptions.load(),
                       listener_.redis_errors.load()};
}

}  // namespace delayq::detail
