#include "waiter/wake_subscriber.hpp"

#include <charconv>
#include <optional>

#include "delayq/error.hpp"
#include "keys.hpp"
#include "redis/permission.hpp"

namespace delayq::detail {
namespace {

constexpr Duration kStopCheck{100};  // how often a quiet subscriber looks at the stop flag

std::optional<std::int64_t> to_int(const std::string& text) {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

// TIME answers seconds and microseconds.
TimePoint parse_time(const Reply& reply) {
    check_permission(reply, "TIME");
    if (reply.is_error()) throw ServerError("TIME failed: " + reply.str);
    const auto seconds = to_int(reply.at(0).as_string());
    const auto micros = to_int(reply.at(1).as_string());
    if (!seconds || !micros) throw ServerError("TIME answered something other than a time");
    return TimePoint(Duration(*seconds * 1000 + *micros / 1000));
}

}  // namespace

void WakeSubscriber::listen() {
    const std::string channel = make_keys(core_.name())[kWakeChannel];
    Connection conn = core_.client().connect();
    // The signals carry due times on the Redis clock.
    const Reply time = conn.command({"TIME"});
    clock_.set_offset(parse_time(time), std::chrono::steady_clock::now());
    conn.append(std::initializer_list<std::string_view>{"SSUBSCRIBE", channel});
    const Reply confirm = conn.read();
    check_permission(confirm, "SSUBSCRIBE");
    if (confirm.is_error()) throw ServerError("SSUBSCRIBE failed: " + confirm.str);
    subscriptions_.fetch_add(1, std::memory_order_relaxed);
    failures_ = 0;
    clock_.wake_now();
    while (!stop_.requested()) {
        auto msg = conn.read_pushed(kStopCheck);
        if (!msg || msg->type != Reply::Type::kArray || msg->elements.size() != 3) continue;
        const auto due = to_int(msg->elements[2].str);
        if (!due) continue;
        signals_.fetch_add(1, std::memory_order_relaxed);
        clock_.note_due(TimePoint(Duration(*due)));
    }
}

void WakeSubscriber::run() {
    while (!stop_.requested()) {
        try {
            listen();
        } catch (const Error& e) {
            report_loop_error(redis_errors_, core_.name(), "subscribe", e);
            stop_.sleep_for(reconnect_delay(failures_++));
        }
    }
}

}  // namespace delayq::detail
