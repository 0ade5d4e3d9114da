#include "redis/sentinel_watch.hpp"

#include <poll.h>

#include "delayq/error.hpp"
#include "log.hpp"
#include "redis/permission.hpp"
#include "redis/socket_wait.hpp"

namespace delayq::detail {
namespace {

constexpr std::string_view kChannel = "+switch-master";
// How long a subscribed sentinel may be silent before it is PINGed, and then before it counts as
// gone: a sentinel whose machine vanished sends no reset, and the watch must not wait on it
// forever while another sentinel announces the failover.
constexpr Duration kQuiet = std::chrono::seconds(10);

}  // namespace

void SentinelWatch::request_stop() {
    stop_.store(true);
    bell_.notify();
}

void SentinelWatch::run() {
    int failures = 0;
    for (std::size_t next = 0; !stop_.load(); ++next) {
        const Endpoint& sentinel = sentinels_[next % sentinels_.size()];
        try {
            session(sentinel);
            failures = 0;
        } catch (const std::exception& e) {
            log().warn(
                "watching the sentinels for a failover of {}: sentinel {} failed, trying "
                "the next: {}",
                master_name_, sentinel.describe(), e.what());
            ++failures;
        }
        // Sleeps the back-off unless the stop comes first.
        if (!stop_.load() && wait_for_socket(bell_.fd(), POLLIN, reconnect_delay(failures))) {
            bell_.drain();
        }
    }
}

void SentinelWatch::session(const Endpoint& sentinel) {
    Connection conn = connect_(sentinel);
    const Reply reply = conn.command({"SUBSCRIBE", kChannel});
    check_permission(reply, "SUBSCRIBE", kChannel);
    if (reply.is_error()) throw ServerError("SUBSCRIBE +switch-master failed: " + reply.str);
    // A switch made while no sentinel was heard (before the first subscription too) is learnt
    // by asking.
    switched_();
    bool pinged = false;
    while (!stop_.load()) {
        const auto message = conn.read_pushed(kQuiet, bell_.fd());
        if (!message) {
            if (stop_.load()) return;
            if (pinged) throw ConnectionError("the sentinel stopped answering");
            conn.append(std::initializer_list<std::string_view>{"PING"});
            conn.flush();
            pinged = true;
            continue;
        }
        pinged = false;  // any message shows the sentinel alive, PING's answer too
        if (message->type != Reply::Type::kArray || message->elements.size() != 3) continue;
        if (message->elements[0].str != "message" || message->elements[1].str != kChannel) continue;
        if (const auto to = parse_switch_master(message->elements[2].str, master_name_)) {
            log().info("the sentinels switched the master {} to {}:{}", master_name_, to->host,
                       to->port);
            switched_();
        }
    }
}

}  // namespace delayq::detail
