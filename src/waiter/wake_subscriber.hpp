#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loop.hpp"
#include "redis/connection.hpp"
#include "redis/event_fd.hpp"
#include "redis/pool.hpp"
#include "redis/redirect.hpp"
#include "waiter/wake_clock.hpp"

namespace delayq::detail {

// What one waiter registers with the subscriber: the clock its channel's signals go to, and its
// share of the counts (WaiterStats).
struct WakeListener {
    explicit WakeListener(WakeClock& c) : clock(c) {}
    WakeClock& clock;
    std::atomic<std::uint64_t> signals{0};        // wake signals noted on the clock
    std::atomic<std::uint64_t> subscriptions{0};  // (re)subscriptions of its channel
    std::atomic<std::uint64_t> redis_errors{0};   // failed ones (retried with back-off)
};

// Listens on the wake channels of every waiter of a Client (dq:{q}:wake, where producers
// publish the due time of a message that became due earlier than everything waiting) over ONE
// connection and thread, and notes those times on the listeners' clocks. Channels are
// subscribed (SSUBSCRIBE, one channel a command, so that each can go to its own cluster node
// later) when their first listener comes and unsubscribed when their last one goes; a change
// wakes the thread at once through an eventfd in its socket wait. Each listener is aimed with
// the Redis clock (TIME) and fired once after each (re)subscription of its channel, since
// signals sent while it was not listening are gone. A broken connection is retried with
// back-off; a channel Redis refuses (ACL) is retried alone. Without listeners it holds no
// connection. Thread-safe.
class WakeSubscriber : public Loop {
  public:
    // Told (on the subscriber's thread, no lock held) that a channel with listeners is served
    // elsewhere now: its SSUBSCRIBE answered MOVED (with the redirection), or Redis dropped it
    // (SUNSUBSCRIBE unasked: its slot moved; no redirection). The channel stays here, retried,
    // until the callee take()s it.
    using Moved = std::function<void(const std::string& channel, const Redirect* redirect)>;

    // Listens on `node` (the pool of one Redis node): a shard channel is heard on the node that
    // serves its slot.
    WakeSubscriber(ConnectionPool& node, Moved moved) : node_(node), moved_(std::move(moved)) {}

    void request_stop() override;

    // `listener` hears `channel` until remove(); it must outlive that.
    void add(const std::string& channel, WakeListener& listener);
    // After it returns, `listener` is not touched again.
    void remove(const std::string& channel, WakeListener& listener);
    // Removes `channel` and answers its listeners, to be added to another node's subscriber.
    std::vector<WakeListener*> take(const std::string& channel);

    std::size_t channels() const;        // with listeners, or not yet unsubscribed
    std::uint64_t connections() const;   // connections made so far
    std::uint64_t redis_errors() const;  // failed connections and subscriptions

  private:
    using Steady = std::chrono::steady_clock;
    struct Channel {
        std::vector<WakeListener*> listeners;
        bool subscribed = false;  // confirmed by Redis
        bool in_flight = false;   // a (un)subscription sent, its reply not read yet
        int failures = 0;         // refused in a row
        Steady::time_point retry_at{};
    };
    enum class Op { kSubscribe, kUnsubscribe };
    struct Aim {
        WakeClock::PreciseTime redis_now;
        Steady::time_point received;
    };

    void run() override;
    const char* thread_name() const override { return "dq-wake-sub"; }
    bool wanted() const;  // with mutex_ held: a channel has listeners
    void session();       // one connection's life; throws on a Redis failure
    // Sleeps up to `d`; only a stop ends it early (false).
    bool sleep_for(Duration d);
    // Sends the (un)subscriptions due; aims and fires listeners that joined a live channel.
    // Returns how long the thread may sleep before a refused channel is due again.
    Duration send_changes(Connection& conn);
    void handle(const Reply& reply);
    void greet(const std::vector<WakeListener*>& listeners);  // mutex_ held
    void connection_lost(const std::exception& e);
    Aim read_time(Connection& conn);

    ConnectionPool& node_;
    const Moved moved_;
    EventFd bell_;  // a change to send, or stop
    std::atomic<bool> stop_{false};
    std::atomic<bool> changed_{false};  // a listener came or went since the last send_changes
    std::atomic<std::uint64_t> connections_{0};
    std::atomic<std::uint64_t> redis_errors_{0};
    int failures_ = 0;  // connections failed in a row

    mutable std::mutex mutex_;
    std::map<std::string, Channel, std::less<>> channels_;
    std::vector<std::pair<std::string, WakeListener*>> joined_;  // joined a live channel

    // The subscriber thread's own: what was sent and awaits its reply, in order, and the clock.
    std::deque<std::pair<Op, std::string>> sent_;
    Aim aim_{};
    bool pubsub_ = false;  // the connection subscribed: TIME goes through the pool from then on
    Steady::time_point next_retry_ = Steady::time_point::max();
};

}  // namespace delayq::detail
