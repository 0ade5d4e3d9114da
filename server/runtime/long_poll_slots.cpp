#include <utility>

#include "runtime/long_poll_parts.hpp"

// Which queues hold a waiter: a queue's slot is made on its first poll, within the caps (in
// total and per token, releasing the longest idle one to make room), idles once it has no poll
// and no fetch, and is released when idle long enough or to make room; its waiter is stopped
// outside the hub's lock.
namespace delayq::server::runtime {

LongPollHub::Slot& LongPollHub::slot_for(const std::string& queue, const std::string& token,
                                         Slots& retired) {
    auto it = slots_.find(queue);
    if (it != slots_.end()) return *it->second;
    Leases leases = client_.leases(queue);  // throws for a bad name
    check_caps(token, retired);
    auto slot = std::make_unique<Slot>(queue, token, std::move(leases));
    slot->waiter = std::make_shared<Waiter>(slot->leases, options_.waiter);
    // Subscribed before the first fetch, so that no firing after it is missed.
    slot->subscription = slot->waiter->subscribe([this, queue] { on_fire(queue); });
    slot->waiter->start();
    if (!token.empty()) ++tokens_[token].queues;
    return *slots_.emplace(queue, std::move(slot)).first->second;
}

void LongPollHub::check_caps(const std::string& token, Slots& retired) {
    if (slots_.size() >= options_.max_queues && !release_idle(nullptr, retired)) {
        throw TooManyPolls("the server long-polls as many queues as it may (" +
                           std::to_string(options_.max_queues) + ")");
    }
    if (token.empty()) return;
    const auto use = tokens_.find(token);
    if (use != tokens_.end() && use->second.queues >= options_.max_queues_per_token &&
        !release_idle(&token, retired)) {
        throw TooManyPolls("this token long-polls as many queues as it may (" +
                           std::to_string(options_.max_queues_per_token) + ")");
    }
}

bool LongPollHub::release_idle(const std::string* token, Slots& retired) {
    for (Slot* slot : idle_) {
        if (token == nullptr || slot->owner == *token) {
            retired.push_back(release(*slot));
            return true;
        }
    }
    return false;
}

std::unique_ptr<LongPollHub::Slot> LongPollHub::release(Slot& slot) {
    if (slot.idle) idle_.erase(slot.idle_pos);
    if (!slot.owner.empty()) {
        const auto use = tokens_.find(slot.owner);
        if (use != tokens_.end() && --use->second.queues == 0 && use->second.polls == 0) {
            tokens_.erase(use);
        }
    }
    const auto it = slots_.find(slot.queue);
    std::unique_ptr<Slot> out = std::move(it->second);
    slots_.erase(it);
    ++released_;
    return out;
}

void LongPollHub::settle(Slot& slot) {
    if (slot.idle || !slot.waiting.empty() || slot.fetching || stopping_) return;
    slot.idle = true;
    slot.idle_since = std::chrono::steady_clock::now();
    slot.idle_pos = idle_.insert(idle_.end(), &slot);
    if (idle_.size() == 1) timer_cv_.notify_one();
}

void LongPollHub::retire(Slots&& slots) noexcept {
    if (slots.empty()) return;
    WaiterStats sum;
    for (auto& slot : slots) {
        slot->subscription.reset();
        slot->waiter->stop();
        const WaiterStats s = slot->waiter->stats();
        sum.fired += s.fired;
        sum.signals += s.signals;
        sum.subscriptions += s.subscriptions;
        sum.redis_errors += s.redis_errors;
    }
    slots.clear();
    std::lock_guard lock(mu_);
    retired_.fired += sum.fired;
    retired_.signals += sum.signals;
    retired_.subscriptions += sum.subscriptions;
    retired_.redis_errors += sum.redis_errors;
}

}  // namespace delayq::server::runtime
