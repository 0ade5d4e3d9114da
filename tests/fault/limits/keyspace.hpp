#pragma once

#include <string>
#include <vector>

#include "support/full_redis.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

// What a "writes nothing" assertion compares: the key count, DEBUG DIGEST (a hash over every key
// and value, so a changed field, score or counter shows) and the key names found by SCAN (so a
// failure message says which key appeared). RedisServer starts redis-server with
// --enable-debug-command local, which DEBUG DIGEST needs in Redis 7.
struct Keyspace {
    long long dbsize = 0;
    std::string digest;
    std::vector<std::string> keys;  // sorted

    bool operator==(const Keyspace&) const = default;
};

Keyspace keyspace(const RedisServer& server);
std::string describe(const Keyspace& k);

}  // namespace delayq::test
