#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/redis_server.hpp"

namespace delayq::test {

// One node as another sees it: a line of CLUSTER NODES.
struct ClusterNodeView {
    std::string id;
    int port = 0;
    bool myself = false;
    bool primary = false;
    std::string primary_id;  // of a replica
    // Owned ranges, inclusive; without the migration markers only the node itself shows.
    std::vector<std::pair<int, int>> slots;
    // Flag fail: the cluster has agreed that the node is down.
    bool failed = false;
    // Flag pfail, handshake or noaddr: an opinion still forming.
    bool unsettled = false;
    // The cluster bus link to it is up (always so for myself).
    bool linked = false;

    // Its place in the layout, the part every node must see alike: id, role, slots, failed.
    std::string layout() const;
};

// The text of CLUSTER NODES, sorted by id.
std::vector<ClusterNodeView> parse_cluster_nodes(std::string_view text);

// The id of the node that owns `slot` in `view`; "" when none does.
std::string owner_of_slot(const std::vector<ClusterNodeView>& view, int slot);

// Each node's health in CLUSTER SHARDS, by id: "online", "failed", or "loading" for a replica
// not yet known to have synced (such a replica is left out of CLUSTER SLOTS).
std::map<std::string, std::string> parse_shards_health(const RawReply& shards);

// What one node of a cluster says now, for judging whether the cluster has settled.
struct ClusterNodeReport {
    int port = 0;
    bool running = false;
    std::string id;
    // The rest only when running.
    std::string cluster_info;  // CLUSTER INFO
    std::vector<ClusterNodeView> view;
    std::map<std::string, std::string> health;  // CLUSTER SHARDS
    std::string replication;                    // INFO replication
};

// "" when the cluster has settled: every running node says cluster_state:ok, knows every node,
// sees the running ones linked and online and the others failed, sees the same layout as the
// others, and is linked to its primary when it is a replica. Otherwise the first thing that is
// not so yet.
std::string cluster_unsettled(const std::vector<ClusterNodeReport>& reports);

}  // namespace delayq::test
