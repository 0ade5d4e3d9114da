#pragma once

#include <string>
#include <string_view>

#include "support/redis_server.hpp"

namespace delayq::test {

// The error a cluster node answers to send a client elsewhere: "MOVED 12 127.0.0.1:7001", or
// ASK for one command during a migration.
inline std::string redirection(std::string_view kind, int slot, const RedisServer& to) {
    return std::string(kind) + " " + std::to_string(slot) +
           " 127.0.0.1:" + std::to_string(to.port());
}

}  // namespace delayq::test
