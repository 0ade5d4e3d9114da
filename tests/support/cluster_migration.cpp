// RedisCluster's slot migration, in the steps of the Cluster specification's resharding.
#include <string>

#include "support/redis_cluster.hpp"

namespace delayq::test {
namespace {

// Keys a MIGRATE moves at once; GETKEYSINSLOT asks for as many.
constexpr std::size_t kMigrateBatch = 100;
// MIGRATE's own bound on the target's answer, in ms: generous, keys are few and local.
constexpr int kMigrateTimeoutMs = 5000;

}  // namespace

void RedisCluster::begin_migration(int slot, std::size_t from, std::size_t to) {
    const std::string s = std::to_string(slot);
    call(to, {"CLUSTER", "SETSLOT", s, "IMPORTING", node_id(from)});
    call(from, {"CLUSTER", "SETSLOT", s, "MIGRATING", node_id(to)});
}

void RedisCluster::move_keys(int slot, std::size_t from, std::size_t to) {
    for (;;) {
        const RawReply keys = call(from, {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot),
                                          std::to_string(kMigrateBatch)});
        if (keys.elements.empty()) return;
        std::vector<std::string> migrate = {
            "MIGRATE", "127.0.0.1", std::to_string(node(to).port()),
            "",        "0",         std::to_string(kMigrateTimeoutMs),
            "KEYS"};
        for (const auto& key : keys.elements) migrate.push_back(key.str);
        call(from, migrate);
    }
}

void RedisCluster::move_key(const std::string& key, std::size_t from, std::size_t to) {
    call(from, {"MIGRATE", "127.0.0.1", std::to_string(node(to).port()), "", "0",
                std::to_string(kMigrateTimeoutMs), "KEYS", key});
}

void RedisCluster::end_migration(int slot, std::size_t to) {
    const std::string s = std::to_string(slot);
    // The new owner first: it then bumps its config epoch, so that its claim wins wherever
    // gossip meets an older one.
    call(to, {"CLUSTER", "SETSLOT", s, "NODE", node_id(to)});
    for (const std::size_t p : primaries()) {
        if (p != to) call(p, {"CLUSTER", "SETSLOT", s, "NODE", node_id(to)});
    }
    await_settled("node :" + std::to_string(node(to).port()) + " serves slot " + s,
                  [&](const std::vector<ClusterNodeReport>& reports) -> std::string {
                      // Settled, every node sees the same layout: the first says for all.
                      for (const auto& r : reports) {
                          if (!r.running) continue;
                          const std::string owner = owner_of_slot(r.view, slot);
                          return owner == node_id(to) ? "" : "node " + owner + " owns it";
                      }
                      return "no node is running";
                  });
}

void RedisCluster::migrate_slot(int slot, std::size_t to) {
    const std::size_t from = primary_of_slot(slot);
    if (from == to) return;
    begin_migration(slot, from, to);
    move_keys(slot, from, to);
    end_migration(slot, to);
}

}  // namespace delayq::test
