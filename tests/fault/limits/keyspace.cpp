#include "fault/limits/keyspace.hpp"

#include <algorithm>
#include <stdexcept>

namespace delayq::test {

Keyspace keyspace(const RedisServer& server) {
    Keyspace k;
    k.dbsize = server.dbsize();
    const RawReply digest = server.command({"DEBUG", "DIGEST"});
    if (digest.is_error()) throw std::runtime_error("DEBUG DIGEST failed: " + digest.str);
    k.digest = digest.str;
    std::string cursor = "0";
    do {
        const RawReply page = server.command({"SCAN", cursor, "COUNT", "1000"});
        if (page.is_error() || page.elements.size() != 2) {
            throw std::runtime_error("SCAN failed: " + page.str);
        }
        cursor = page.elements[0].str;
        for (const auto& key : page.elements[1].elements) k.keys.push_back(key.str);
    } while (cursor != "0");
    std::sort(k.keys.begin(), k.keys.end());
    return k;
}

std::string describe(const Keyspace& k) {
    std::string out = std::to_string(k.dbsize) + " keys, digest " + k.digest + ":";
    for (const auto& key : k.keys) out += " " + key;
    return out;
}

}  // namespace delayq::test
