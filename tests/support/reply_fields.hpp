#pragma once

#include <map>
#include <string>

#include "support/redis_server.hpp"

namespace delayq::test {

// A RESP2 map (CLUSTER SHARDS' nodes, SENTINEL REPLICAS' entries): a flat array of names and
// values, integers given as text.
inline std::map<std::string, std::string> reply_fields(const RawReply& map) {
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i + 1 < map.elements.size(); i += 2) {
        const RawReply& value = map.elements[i + 1];
        out[map.elements[i].str] =
            value.kind == RawReply::Kind::kInteger ? std::to_string(value.integer) : value.str;
    }
    return out;
}

}  // namespace delayq::test
