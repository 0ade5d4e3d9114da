#include "waiter/wake_hub.hpp"

#include "client_core.hpp"
#include "redis/key_slot.hpp"

namespace delayq::detail {

WakeHub::WakeHub(ClientCore& client) : client_(client) {
    timer_.start();
    client_.topology().on_master_change([this] { master_changed(); });
}

WakeHub::~WakeHub() {
    // Before anything stops: a failover learnt from now on moves nothing here.
    client_.topology().on_master_change(nullptr);
    // Out of the map first: a subscriber's thread may be waiting in moved() for the mutex,
    // and finds the hub stopping.
    std::map<ConnectionPool*, std::unique_ptr<WakeSubscriber>> subscribers;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        subscribers = std::move(subscribers_);
    }
    // All asked first, so that they wind down together.
    for (auto& [node, subscriber] : subscribers) subscriber->request_stop();
    timer_.request_stop();
    for (auto& [node, subscriber] : subscribers) subscriber->join();
    timer_.join();
}

WakeSubscriber& WakeHub::subscriber_locked(ConnectionPool& node) {
    auto& subscriber = subscribers_[&node];
    if (!subscriber) {
        subscriber = std::make_unique<WakeSubscriber>(
            node, [this, &node](const std::string& channel, const Redirect* redirect) {
                moved(channel, redirect, node);
            });
        subscriber->start();
    }
    return *subscriber;
}

void WakeHub::add(const std::string& channel, WakeListener& listener) {
    // A waiter starts while Redis is away or refused too: its subscriber keeps trying.
    ConnectionPool& node = client_.topology().pool_for_later(key_slot(channel));
    std::lock_guard lock(mutex_);
    Home& home = homes_[channel];
    if (home.subscriber == nullptr) home.subscriber = &subscriber_locked(node);
    ++home.listeners;
    home.subscriber->add(channel, listener);
}

void WakeHub::remove(const std::string& channel, WakeListener& listener) {
    std::lock_guard lock(mutex_);
    const auto it = homes_.find(channel);
    if (it == homes_.end()) return;
    it->second.subscriber->remove(channel, listener);
    if (--it->second.listeners == 0) homes_.erase(it);
}

void WakeHub::moved(const std::string& channel, const Redirect* redirect, ConnectionPool& from) {
    Topology& topology = client_.topology();
    if (redirect != nullptr) {
        topology.moved(*redirect, from.endpoint());
    } else {
        topology.refresh();
    }
    rehome(channel);
}

void WakeHub::master_changed() {
    std::vector<std::string> channels;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [channel, home] : homes_) channels.push_back(channel);
    }
    for (const std::string& channel : channels) rehome(channel);
}

void WakeHub::rehome(const std::string& channel) {
    ConnectionPool& node = client_.topology().pool_for_later(key_slot(channel));
    std::lock_guard lock(mutex_);
    const auto it = homes_.find(channel);
    if (stopping_ || it == homes_.end()) return;
    WakeSubscriber& now = subscriber_locked(node);
    // The map does not know of the move yet: the old subscriber retries, and asks again.
    if (&now == it->second.subscriber) return;
    for (WakeListener* listener : it->second.subscriber->take(channel)) now.add(channel, *listener);
    it->second.subscriber = &now;
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
