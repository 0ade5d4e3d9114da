#include "redis/replica_wait.hpp"

#include <chrono>
#include <exception>
#include <optional>

namespace delayq::detail {

ReplicaAck wait_for_replicas(Connection& conn, int replicas, Duration timeout) {
    const std::string count = std::to_string(replicas);
    const std::string ms = std::to_string(timeout.count());
    try {
        conn.append(std::initializer_list<std::string_view>{"WAIT", count, ms});
        conn.flush();
        // Redis answers by `timeout` at the latest: wait that long for the reply, then as long
        // as any reply (read() gives up, and breaks the connection, after the command timeout).
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::optional<Reply> reply;
        for (auto now = std::chrono::steady_clock::now(); !reply && now < deadline;
             now = std::chrono::steady_clock::now()) {
            reply = conn.read_pushed(std::chrono::duration_cast<Duration>(deadline - now) +
                                     Duration(1));
        }
        if (!reply) reply = conn.read();
        if (reply->is_error()) return {0, "WAIT was refused: " + reply->str};
        return {static_cast<int>(reply->as_int()), {}};
    } catch (const std::exception& e) {
        return {0, std::string("WAIT failed: ") + e.what()};
    }
}

}  // namespace delayq::detail
