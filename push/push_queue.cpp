#include "push/push_queue.hpp"

#include <utility>

namespace delayq::push {

PushQueue::PushQueue(const Client& client, std::string name, Duration idle_check,
                     std::function<void()> on_wake)
    : name_(std::move(name)),
      leases_(client.leases(name_)),
      targets_(client.push_targets(name_)),
      waiter_(leases_, WaiterOptions{idle_check}) {
    subscription_ = waiter_.subscribe([this, on_wake = std::move(on_wake)] {
        wake();
        on_wake();
    });
    waiter_.start();
}

PushQueue::~PushQueue() {
    subscription_.reset();
    waiter_.stop();
}

bool PushQueue::refresh() {
    std::optional<PushTargets::ForPusher> read = targets_.read_for_pusher();
    if (!read) {
        target_.reset();
        signer_.reset();
        return false;
    }
    if (target_ && target_->updated == read->updated) return true;
    target_ = std::move(read);
    signer_.reset();
    signer_ = std::make_unique<WebhookSigner>(target_->target.secrets);
    wake();
    return true;
}

}  // namespace delayq::push
