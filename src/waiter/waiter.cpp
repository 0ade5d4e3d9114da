#include "delayq/waiter.hpp"

#include "waiter/waiter_core.hpp"

namespace delayq {

Waiter::Waiter(const Leases& leases, WaiterOptions options)
    : core_(std::make_shared<detail::WaiterCore>(leases.core_, options)) {}

Waiter::~Waiter() { core_->stop(); }

void Waiter::start() { core_->start(); }

void Waiter::stop() { core_->stop(); }

void Waiter::note_fetch(const FetchResult& result) {
    core_->clock().note_fetch(result, std::chrono::steady_clock::now());
}

void Waiter::note_due(TimePoint due) { core_->clock().note_due(due); }

std::uint64_t Waiter::epoch() const { return core_->clock().epoch(); }

bool Waiter::wait(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) {
    return core_->clock().wait(seen, deadline);
}

bool Waiter::wait_until_due(std::chrono::steady_clock::time_point deadline) {
    auto& clock = core_->clock();
    return clock.wait(clock.epoch(), deadline);
}

Waiter::Subscription Waiter::subscribe(std::function<void()> callback) {
    return Subscription(core_, core_->clock().add_callback(std::move(callback)));
}

WaiterStats Waiter::stats() const { return core_->stats(); }

Waiter::Subscription::Subscription(std::weak_ptr<detail::WaiterCore> core, std::uint64_t id)
    : core_(std::move(core)), id_(id) {}

Waiter::Subscription::~Subscription() { reset(); }

Waiter::Subscription::Subscription(Subscription&& other) noexcept
    : core_(std::move(other.core_)), id_(std::exchange(other.id_, 0)) {}

Waiter::Subscription& Waiter::Subscription::operator=(Subscription&& other) noexcept {
    if (this != &other) {
        reset();
        core_ = std::move(other.core_);
        id_ = std::exchange(other.id_, 0);
    }
    return *this;
}

void Waiter::Subscription::reset() {
    if (id_ == 0) return;
    if (auto core = core_.lock()) core->clock().remove_callback(id_);
    core_.reset();
    id_ = 0;
}

}  // namespace delayq
