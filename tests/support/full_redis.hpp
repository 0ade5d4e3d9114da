#pragma once

// Redis at maxmemory, for the scenarios that need it full: the limits suite's
// (tests/fault/limits/full_redis_test.cpp) and FUNCTION FLUSH at maxmemory
// (tests/fault/script_flush_test.cpp).
#include <string>

#include "support/redis_server.hpp"

namespace delayq::test {

// INFO memory's used_memory, in bytes.
inline long long used_memory(const RedisServer& server) {
    return server.info_integer("memory", "used_memory");
}

inline RawReply set_maxmemory(const RedisServer& server, long long bytes) {
    return server.command({"CONFIG", "SET", "maxmemory", std::to_string(bytes)});
}

// Fills `server` with unrelated keys (filler:<i>, 64 KiB each) until a write is refused, then
// lowers maxmemory `below` bytes under what is used, so that Redis stays full while a test frees
// less than that (a drain, a shrunk query buffer, a closed connection). Returns how many keys
// went in; -1 when a write failed for another reason than OOM or Redis never filled up.
inline int fill_with_keys(const RedisServer& server, long long below) {
    constexpr long long kKiB = 1024;
    set_maxmemory(server, used_memory(server) + 2 * kKiB * kKiB);
    const std::string filler(64 * kKiB, 'f');
    for (int i = 0; i < 1000; ++i) {
        const RawReply r = server.command({"SET", "filler:" + std::to_string(i), filler});
        if (r.is_error()) {
            if (r.str.find("OOM") == std::string::npos) return -1;
            set_maxmemory(server, used_memory(server) - below);
            return i;
        }
    }
    return -1;
}

}  // namespace delayq::test
