#pragma once

// How many times a Redis server ran one command, from INFO commandstats: for tests that tell
// script calls apart by a command only one script runs.
#include <string>

#include "support/redis_server.hpp"

namespace delayq::test {

// The calls of `command` (lower case; a subcommand as "function|load"); 0 before the first.
inline long long command_calls(const RedisServer& server, const std::string& command) {
    const std::string info = server.command({"INFO", "commandstats"}).str;
    const std::string field = "cmdstat_" + command + ":calls=";
    const auto at = info.find(field);
    return at == std::string::npos ? 0 : std::stoll(info.substr(at + field.size()));
}

}  // namespace delayq::test
