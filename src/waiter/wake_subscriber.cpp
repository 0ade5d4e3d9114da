#include "waiter/wake_subscriber.hpp"

#include <poll.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "delayq/error.hpp"
#include "log.hpp"
#include "redis/permission.hpp"
#include "redis/redirect.hpp"
#include "redis/socket_wait.hpp"

namespace delayq::detail {
namespace {

// How long a subscriber with nothing to retry sleeps between looks at its state; every change
// and the stop wake it at once, so this is only a bound.
constexpr Duration kQuiet = std::chrono::seconds(60);

std::optional<std::int64_t> int_of(const std::string& text) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

// TIME answers seconds and microseconds.
WakeClock::PreciseTime parse_time(const Reply& reply) {
    check_permission(reply, "TIME");
    if (reply.is_error()) throw ServerError("TIME failed: " + reply.str);
    const auto seconds = int_of(reply.at(0).as_string());
    const auto micros = int_of(reply.at(1).as_string());
    if (!seconds || !micros) throw ServerError("TIME answered something other than a time");
    return WakeClock::PreciseTime(std::chrono::microseconds(*seconds * 1000000 + *micros));
}

std::string refusal(const Reply& reply, const std::string& channel) {
    try {
        check_permission(reply, "SSUBSCRIBE", channel);
    } catch (const Error& e) {
        return e.what();
    }
    return "SSUBSCRIBE " + channel + " failed: " + reply.str;
}

}  // namespace

void WakeSubscriber::request_stop() {
    stop_.store(true);
    bell_.notify();
}

void WakeSubscriber::add(const std::string& channel, WakeListener& listener) {
    {
        std::lock_guard lock(mutex_);
        auto it = channels_.try_emplace(channel).first;
        Channel& c = it->second;
        c.listeners.push_back(&listener);
        if (c.subscribed && !c.in_flight) joined_.emplace_back(channel, &listener);
    }
    changed_.store(true);
    bell_.notify();
}

void WakeSubscriber::remove(const std::string& channel, WakeListener& listener) {
    {
        std::lock_guard lock(mutex_);
        std::erase_if(joined_, [&](const auto& j) { return j.second == &listener; });
        const auto it = channels_.find(channel);
        if (it == channels_.end()) return;
        std::erase(it->second.listeners, &listener);
    }
    changed_.store(true);
    bell_.notify();
}

std::vector<WakeListener*> WakeSubscriber::take(const std::string& channel) {
    std::vector<WakeListener*> out;
    {
        std::lock_guard lock(mutex_);
        const auto it = channels_.find(channel);
        if (it == channels_.end()) return out;
        out = std::move(it->second.listeners);
        it->second.listeners.clear();
        std::erase_if(joined_, [&](const auto& j) { return j.first == channel; });
    }
    // Unsubscribed here if it still is, then forgotten (send_changes).
    changed_.store(true);
    bell_.notify();
    return out;
}

std::size_t WakeSubscriber::channels() const {
    std::lock_guard lock(mutex_);
    return channels_.size();
}

std::uint64_t WakeSubscriber::connections() const { return connections_.load(); }

std::uint64_t WakeSubscriber::redis_errors() const { return redis_errors_.load(); }

bool WakeSubscriber::wanted() const {
    return std::any_of(channels_.begin(), channels_.end(),
                       [](const auto& c) { return !c.second.listeners.empty(); });
}

bool WakeSubscriber::sleep_for(Duration d) {
    const auto deadline = Steady::now() + d;
    while (!stop_.load()) {
        const auto left = std::chrono::ceil<Duration>(deadline - Steady::now());
        if (left.count() <= 0) return true;
        if (wait_for_socket(bell_.fd(), POLLIN, left)) bell_.drain();
    }
    return false;
}

void WakeSubscriber::run() {
    while (!stop_.load()) {
        try {
            bool want = false;
            {
                std::lock_guard lock(mutex_);
                want = wanted();
                // Nobody listens: what is left was unsubscribed with the connection.
                if (!want) channels_.clear();
            }
            if (!want) {
                // Woken by the first listener or the stop.
                if (wait_for_socket(bell_.fd(), POLLIN, kQuiet)) bell_.drain();
                continue;
            }
            session();
        } catch (const std::exception& e) {
            connection_lost(e);
            sleep_for(reconnect_delay(failures_++));
        }
    }
}

WakeSubscriber::Aim WakeSubscriber::read_time(Connection& conn) {
    // A subscribed connection takes no other command (RESP2).
    const Reply time = pubsub_ ? node_.acquire()->command({"TIME"}) : conn.command({"TIME"});
    return Aim{parse_time(time), Steady::now()};
}

void WakeSubscriber::session() {
    Connection conn = node_.connect();
    connections_.fetch_add(1, std::memory_order_relaxed);
    sent_.clear();
    pubsub_ = false;
    {
        std::lock_guard lock(mutex_);
        for (auto& [name, c] : channels_) {
            c.subscribed = false;
            c.in_flight = false;
            c.retry_at = {};
        }
        joined_.clear();  // greeted when their channel is subscribed again
    }
    changed_.store(true);
    while (!stop_.load()) {
        Duration sleep = kQuiet;
        if (changed_.exchange(false) || Steady::now() >= next_retry_) {
            {
                std::lock_guard lock(mutex_);
                if (!wanted()) return;  // nobody listens: the connection goes
            }
            sleep = send_changes(conn);
            failures_ = 0;
        } else if (next_retry_ != Steady::time_point::max()) {
            sleep = std::chrono::ceil<Duration>(next_retry_ - Steady::now());
        }
        if (auto msg = conn.read_pushed(std::max(sleep, Duration{0}), bell_.fd())) {
            handle(*msg);
        } else {
            bell_.drain();
        }
    }
}

Duration WakeSubscriber::send_changes(Connection& conn) {
    std::vector<std::pair<Op, std::string>> ops;
    Duration sleep = kQuiet;
    bool need_time = false;
    {
        std::lock_guard lock(mutex_);
        const auto now = Steady::now();
        next_retry_ = Steady::time_point::max();
        for (auto it = channels_.begin(); it != channels_.end();) {
            Channel& c = it->second;
            const bool want = !c.listeners.empty();
            if (c.in_flight) {
                ++it;
                continue;
            }
            if (want && !c.subscribed) {
                if (c.retry_at <= now) {
                    ops.emplace_back(Op::kSubscribe, it->first);
                    c.in_flight = true;
                    need_time = true;
                } else {
                    next_retry_ = std::min(next_retry_, c.retry_at);
                    sleep = std::min(sleep, std::chrono::ceil<Duration>(c.retry_at - now));
                }
            } else if (!want && c.subscribed) {
                ops.emplace_back(Op::kUnsubscribe, it->first);
                c.in_flight = true;
            } else if (!want) {
                it = channels_.erase(it);
                continue;
            }
            ++it;
        }
        need_time = need_time || !joined_.empty();
    }
    if (need_time) {
        aim_ = read_time(conn);
        std::lock_guard lock(mutex_);
        for (const auto& [name, listener] : joined_) {
            const auto it = channels_.find(name);
            if (it != channels_.end()) greet({listener});
        }
        joined_.clear();
    }
    for (const auto& [op, name] : ops) {
        const std::string_view command = op == Op::kSubscribe ? "SSUBSCRIBE" : "SUNSUBSCRIBE";
        conn.append(std::initializer_list<std::string_view>{command, name});
        sent_.emplace_back(op, name);
        if (op == Op::kSubscribe) pubsub_ = true;
    }
    conn.flush();
    return sleep;
}

void WakeSubscriber::greet(const std::vector<WakeListener*>& listeners) {
    for (WakeListener* l : listeners) {
        l->subscriptions.fetch_add(1, std::memory_order_relaxed);
        l->clock.set_offset(aim_.redis_now, aim_.received);
        l->clock.wake_now();
    }
}

void WakeSubscriber::handle(const Reply& reply) {
    if (reply.is_error()) {
        // Only a command's reply can be an error: the oldest one sent.
        if (sent_.empty()) return;
        const auto [op, name] = sent_.front();
        sent_.pop_front();
        std::unique_lock lock(mutex_);
        const auto it = channels_.find(name);
        if (it == channels_.end()) return;
        Channel& c = it->second;
        c.in_flight = false;
        c.subscribed = false;
        if (op != Op::kSubscribe) return;
        if (const auto redirect = parse_redirect(reply)) {
            // The channel's slot is served by another node: its subscriber takes it over.
            c.retry_at = Steady::now() + reconnect_delay(c.failures++);
            next_retry_ = std::min(next_retry_, c.retry_at);
            lock.unlock();
            moved_(name, &*redirect);
            return;
        }
        redis_errors_.fetch_add(1, std::memory_order_relaxed);
        for (WakeListener* l : c.listeners) l->redis_errors.fetch_add(1, std::memory_order_relaxed);
        log().warn("wake channel {}: subscribing failed, will retry: {}", name,
                   refusal(reply, name));
        c.retry_at = Steady::now() + reconnect_delay(c.failures++);
        next_retry_ = std::min(next_retry_, c.retry_at);
        return;
    }
    if (reply.type != Reply::Type::kArray || reply.elements.size() != 3) return;
    const std::string& kind = reply.elements[0].str;
    const std::string& name = reply.elements[1].str;
    if (kind == "smessage") {
        const auto due = int_of(reply.elements[2].str);
        if (!due) return;
        std::lock_guard lock(mutex_);
        const auto it = channels_.find(name);
        if (it == channels_.end()) return;
        for (WakeListener* l : it->second.listeners) {
            l->signals.fetch_add(1, std::memory_order_relaxed);
            l->clock.note_due(TimePoint(Duration(*due)));
        }
        return;
    }
    const bool subscribed = kind == "ssubscribe";
    if (!subscribed && kind != "sunsubscribe") return;
    // A confirmation of what was sent, or (sunsubscribe) Redis dropping the channel itself, as
    // a cluster does when its slot moves.
    const bool answer = !sent_.empty() && sent_.front().second == name &&
                        (sent_.front().first == Op::kSubscribe) == subscribed;
    if (answer) sent_.pop_front();
    std::unique_lock lock(mutex_);
    const auto it = channels_.find(name);
    if (it == channels_.end()) return;
    Channel& c = it->second;
    if (answer) c.in_flight = false;
    c.subscribed = subscribed;
    if (subscribed) {
        c.failures = 0;
        greet(c.listeners);
    } else {
        changed_.store(true);  // resubscribed if it still has listeners
        if (!answer && !c.listeners.empty()) {
            // Dropped by Redis: in a cluster, the channel's slot moved to another node.
            lock.unlock();
            moved_(name, nullptr);
        }
    }
}

void WakeSubscriber::connection_lost(const std::exception& e) {
    redis_errors_.fetch_add(1, std::memory_order_relaxed);
    std::size_t listening = 0;
    {
        std::lock_guard lock(mutex_);
        for (auto& [name, c] : channels_) {
            listening += c.listeners.empty() ? 0 : 1;
            for (WakeListener* l : c.listeners) {
                l->redis_errors.fetch_add(1, std::memory_order_relaxed);
            }
        }
    }
    log().warn("wake subscriber: Redis failed, will resubscribe {} channels: {}", listening,
               e.what());
}

}  // namespace delayq::detail
