#include "waiter/wake_hub.hpp"

#include "client_core.hpp"
#include "redis/key_slot.hpp"

namespace delayq::detail {

WakeHub::WakeHub(ClientCore& client) : client_(client) { timer_.start(); }

WakeHub::~WakeHub() {
    // All asked first, so that they wind down together.
    {
        std::lock_guard lock(mutex_);
        for (auto& [node, subscriber] : subscribers_) subscriber->request_stop();
    }
    timer_.request_stop();
    std::lock_guard lock(mutex_);
    for (auto& [node, subscriber] : subscribers_) subscriber->join();
    timer_.join();
}

WakeSubscriber& WakeHub::subscriber_for(std::string_view channel) {
    // A waiter starts while Redis is away too: its subscriber keeps trying, as ever.
    ConnectionPool& node = client_.topology().pool_for_later(key_slot(channel));
    std::lock_guard lock(mutex_);
    auto& subscriber = subscribers_[&node];
    if (!subscriber) {
        subscriber = std::make_unique<WakeSubscriber>(node);
        subscriber->start();
    }
    return *subscriber;
}

WakeHubStats WakeHub::stats() const {
    WakeHubStats out{.timers = timer_.scheduled()};
    std::lock_guard lock(mutex_);
    for (const auto& [node, subscriber] : subscribers_) {
        out.channels += subscriber->channels();
        out.connections += subscriber->connections();
        out.redis_errors += subscriber->redis_errors();
    }
    return out;
}

}  // namespace delayq::detail
