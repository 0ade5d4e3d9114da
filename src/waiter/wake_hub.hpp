#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "waiter/wake_subscriber.hpp"
#include "waiter/wake_timer.hpp"

namespace delayq::detail {

class ClientCore;

struct WakeHubStats {
    std::size_t channels = 0;        // wake channels subscribed or being subscribed
    std::size_t timers = 0;          // waiters' clocks scheduled on the timer
    std::uint64_t connections = 0;   // subscriber connections made so far
    std::uint64_t redis_errors = 0;  // failed subscriber connections and subscriptions
};

// The per-Client resources behind every waiter (public Waiter, Consumer, the HTTP service's
// long-polls): one timer thread that fires all their clocks, and one subscriber (thread and
// connection) per Redis node for all their wake channels. A waiter is a registration on both, so
// the cost of a queue waited on is a map entry and a channel, whatever the number of queues. Made
// on a Client's first waiter; stopped (both threads at once) when the Client goes.
class WakeHub {
  public:
    explicit WakeHub(ClientCore& client);
    ~WakeHub();
    WakeHub(const WakeHub&) = delete;
    WakeHub& operator=(const WakeHub&) = delete;

    WakeTimer& timer() { return timer_; }
    // `listener` hears `channel` until remove(), through the subscriber of the node that serves
    // the channel's slot (one per Redis node: in a cluster a shard channel is published on the
    // node of its slot), made and started on first use. When the cluster moves the slot, the
    // channel and its listeners move to the new node's subscriber.
    void add(const std::string& channel, WakeListener& listener);
    // After it returns, `listener` is not touched again.
    void remove(const std::string& channel, WakeListener& listener);

    WakeHubStats stats() const;

  private:
    struct Home {
        WakeSubscriber* subscriber = nullptr;
        std::size_t listeners = 0;
    };

    WakeSubscriber& subscriber_locked(ConnectionPool& node);  // with mutex_ held
    // A subscriber was told that `channel` is served elsewhere now (redirect: by a MOVED).
    void moved(const std::string& channel, const Redirect* redirect, ConnectionPool& from);
    // The Sentinel master changed: every channel moves to it. A demoted master that stays up
    // keeps the old subscriptions open, and nothing there would ever move them.
    void master_changed();
    // `channel` and its listeners go to the subscriber of the node that serves it now.
    void rehome(const std::string& channel);

    ClientCore& client_;
    WakeTimer timer_;
    mutable std::mutex mutex_;
    bool stopping_ = false;
    // A node's, by its pool (pools live as long as the client): bounded by the nodes.
    std::map<ConnectionPool*, std::unique_ptr<WakeSubscriber>> subscribers_;
    // Where each channel with listeners is heard: bounded by the channels waited on.
    std::map<std::string, Home, std::less<>> homes_;
};

}  // namespace delayq::detail
