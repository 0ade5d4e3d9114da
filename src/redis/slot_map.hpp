#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "redis/key_slot.hpp"
#include "redis/reply.hpp"

namespace delayq::detail {

// A primary of a Redis Cluster, as the cluster announces it.
struct ClusterNode {
    std::string host;  // where to connect: the announced endpoint, else the IP
    int port = 0;
    // What the node's TLS certificate must name: its announced hostname, else `host`.
    std::string tls_name;

    std::string describe() const { return host + ":" + std::to_string(port); }
    bool operator==(const ClusterNode& other) const = default;
};

// Which primary serves each hash slot. Built from one reply; replaced whole on refresh.
class SlotMap {
  public:
    // From CLUSTER SHARDS (Redis 7.0 and later): `tls` picks each node's tls-port where it
    // announces one. A node that announces no address is at `asked_host`, the host the reply
    // came from (as the cluster specification says). Throws ServerError for a reply of another
    // shape.
    static SlotMap from_shards(const Reply& reply, bool tls, const std::string& asked_host);
    // From CLUSTER SLOTS, for servers that lack CLUSTER SHARDS.
    static SlotMap from_slots(const Reply& reply, const std::string& asked_host);

    // The primary serving `slot` (0-16383); nullptr while no node does.
    const ClusterNode* primary(int slot) const;
    const std::vector<ClusterNode>& primaries() const { return primaries_; }
    // How many slots some primary serves (16384 when the cluster covers every slot).
    int covered() const;

    // Makes `node` (added once) the primary of first..last: a range out of bounds is refused
    // (ServerError). Also what a MOVED answer does to one slot until the next load.
    void assign(const ClusterNode& node, std::int64_t first, std::int64_t last);

  private:
    std::vector<ClusterNode> primaries_;
    std::vector<std::int16_t> owners_ = std::vector<std::int16_t>(kClusterSlots, -1);
};

}  // namespace delayq::detail
