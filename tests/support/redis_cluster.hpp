#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/cluster_slot.hpp"
#include "support/cluster_view.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

struct RedisClusterOptions {
    std::size_t primaries = 3;
    std::size_t replicas_per_primary = 1;
    // How long a node may be silent before the others count it down. A killed primary's
    // replica takes over 2 to 3 s after the kill with 1 s.
    std::chrono::milliseconds node_timeout{1000};
    bool appendonly = false;                // so that data survives restart()
    std::vector<std::string> extra_args{};  // for every node
    // For every node's environment, as RedisServerOptions::environment (the model test's clock).
    std::vector<std::string> environment{};
    // TLS-only nodes (RedisServerTls): clients, the cluster bus and replication all speak TLS,
    // and the URLs are rediss://. The bus asks every connecting node for a certificate: give
    // one for client authentication (--tls-client-cert-file, --tls-client-key-file) in
    // extra_args when the server's is for server authentication only.
    std::optional<RedisServerTls> tls{};
};

// A real Redis Cluster on loopback for one test or suite: every node a RedisServer with its own
// directory and nodes.conf. Nodes are known by index: 0 .. primaries-1 start as primaries, each
// owning an equal run of slots in order; then come replicas_per_primary replicas of node 0,
// those of node 1, and so on. Roles change with failovers: primaries() and primary_of_slot()
// ask the nodes. Every method that changes the cluster returns once it has settled (wait_ok),
// except kill(). Errors are std::runtime_error.
class RedisCluster {
  public:
    explicit RedisCluster(RedisClusterOptions options = {});

    std::size_t size() const { return nodes_.size(); }
    RedisServer& node(std::size_t i) { return *nodes_.at(i); }
    const RedisServer& node(std::size_t i) const { return *nodes_.at(i); }
    // Its cluster node id (kept across restarts in its nodes.conf).
    const std::string& node_id(std::size_t i) const { return ids_.at(i); }
    std::size_t index_of_port(int port) const;

    // Running nodes that are primaries now, and replicas now, by their own word; in index order.
    std::vector<std::size_t> primaries() const;
    std::vector<std::size_t> replicas() const;
    // The replicas of `primary` now, as it sees them (a killed one too, until it is forgotten).
    std::vector<std::size_t> replicas_of(std::size_t primary) const;
    // Which node serves `slot` now, as the first running node sees it: after a change the
    // fixture awaited, as every node sees it.
    std::size_t primary_of_slot(int slot) const;
    static int slot_of(std::string_view key) { return cluster_slot_of(key); }
    // `stem` followed by the least number that makes a name whose slot `primary` serves now: a
    // queue there (a queue's keys are tagged with its name).
    std::string name_served_by(std::size_t primary, std::string_view stem) const;

    // redis://127.0.0.1:<port> of a primary, and redis://127.0.0.1:p1,127.0.0.1:p2,... of all
    // of them (the primaries now).
    std::string url() const;
    std::string seeds_url() const;

    // Slot migration in the steps a resharding tool takes, so that a test can act between them.
    // IMPORTING on the target, then MIGRATING on the source (so that the source's ASK
    // redirections already find the target ready).
    void begin_migration(int slot, std::size_t from, std::size_t to);
    // Every key of the slot (GETKEYSINSLOT, then MIGRATE ... KEYS in batches); move_key one.
    void move_keys(int slot, std::size_t from, std::size_t to);
    void move_key(const std::string& key, std::size_t from, std::size_t to);
    // SETSLOT NODE on the new owner first, then on every other primary; awaited until every
    // node sees `to` own the slot.
    void end_migration(int slot, std::size_t to);
    // All three, from the slot's owner now.
    void migrate_slot(int slot, std::size_t to);

    // CLUSTER FAILOVER on `replica`: the switch coordinated with its primary, which loses no
    // write; the primary must be running (else Redis refuses: kill() it and wait_ok() instead).
    // Awaited until the cluster has settled with the replica as a primary.
    void failover(std::size_t replica);
    // SIGKILL, not awaited: wait_ok() awaits what the cluster makes of it (a killed primary's
    // replica takes over 2 to 3 s after the kill with a node_timeout of 1 s).
    void kill(std::size_t i);
    // Starts a killed node again (a former primary comes back as a replica); awaited.
    void restart(std::size_t i);
    // Until the cluster has settled (cluster_unsettled in cluster_view.hpp says what that means).
    void wait_ok() const;

  private:
    // What must hold of a settled cluster's reports besides its being settled: "" when it does.
    using Also = std::function<std::string(const std::vector<ClusterNodeReport>&)>;

    void create();
    // The command's reply; a Redis error is thrown, naming the node and the command.
    RawReply call(std::size_t i, const std::vector<std::string>& args) const;
    std::vector<ClusterNodeReport> reports() const;
    std::vector<ClusterNodeView> view_of(std::size_t i) const;
    std::size_t index_of_id(std::string_view id) const;
    void await_settled(std::string_view what, const Also& also = {}) const;

    RedisClusterOptions options_;
    std::vector<std::unique_ptr<RedisServer>> nodes_;
    std::vector<std::string> ids_;
};

}  // namespace delayq::test
