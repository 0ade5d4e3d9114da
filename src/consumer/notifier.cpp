#include "consumer/notifier.hpp"

#include <charconv>

#include "consumer/shared.hpp"
#include "delayq/error.hpp"
#include "keys.hpp"

namespace delayq::detail {
namespace {

constexpr Duration kStopCheck{100};  // how often a quiet subscriber looks at the stop flag

// Turns a signalled Redis instant into a wake-up of the dispatcher.
void signal_due(ConsumerShared& s, std::int64_t due_ms) {
    std::lock_guard lock(s.mutex);
    auto local = SteadyClock::now();  // without an offset yet: wake at once
    if (s.have_offset) {
        local = SteadyClock::time_point(
            std::chrono::duration_cast<SteadyClock::duration>(Duration(due_ms) - s.clock_offset));
    }
    if (!s.signalled || local < *s.signalled) s.signalled = local;
    s.dispatcher_cv.notify_one();
}

}  // namespace

void Notifier::run() {
    ConsumerShared& s = shared_;
    const std::string channel = make_keys(s.core->name())[kWakeChannel];
    int failures = 0;
    for (;;) {
        {
            std::lock_guard lock(s.mutex);
            if (s.stopping) break;
        }
        try {
            Connection conn = s.core->client().connect();
            conn.append(std::initializer_list<std::string_view>{"SSUBSCRIBE", channel});
            Reply confirm = conn.read();
            if (confirm.is_error()) throw ServerError("SSUBSCRIBE failed: " + confirm.str);
            failures = 0;
            signal_due(s, 0);
            for (;;) {
                {
                    std::lock_guard lock(s.mutex);
                    if (s.stopping) return;
                }
                auto msg = conn.read_pushed(kStopCheck);
                if (!msg || msg->type != Reply::Type::kArray || msg->elements.size() != 3) continue;
                const std::string& text = msg->elements[2].str;
                std::int64_t due = 0;
                auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), due);
                if (ec == std::errc{}) signal_due(s, due);
            }
        } catch (const Error& e) {
            report_redis_error(s, "subscribe", e);
            std::unique_lock lock(s.mutex);
            s.sleep_for(lock, reconnect_delay(failures++), [&] { return s.stopping; });
        }
    }
}

}  // namespace delayq::detail
