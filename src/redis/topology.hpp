#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "redis/pool.hpp"
#include "redis/redirect.hpp"
#include "redis/sentinel.hpp"
#include "redis/slot_map.hpp"
#include "redis/url.hpp"

namespace delayq::detail {

// Where a client's calls go: one server, or the primaries of a Redis Cluster that the seeds
// lead to. The first use decides: the first seed that answers tells by INFO whether it runs in
// cluster mode; a cluster's slot map is then loaded (CLUSTER SHARDS, else CLUSTER SLOTS) and
// each primary gets its own ConnectionPool, and so its own NodeEngine (the function library is
// ensured per node). Callers name the hash slot of their keys (a queue's) and get the pool that
// serves it; nothing above src/redis learns more of the cluster than that.
// Under Sentinel (Settings::sentinels set) the server is the master the sentinels name, checked
// by ROLE, and it changes with a failover: learnt from the sentinels' +switch-master (a
// SentinelWatch, started with the first discovery) and from a call that meets a demoted master
// (READONLY) or a dead one (refresh). Every slot is the master's. Thread-safe.
class SentinelWatch;

class Topology {
  public:
    // Opens a connection to one node (and authenticates, selects, checks the server).
    using Connect = std::function<Connection(const Endpoint&)>;

    struct Settings {
        std::vector<Endpoint> seeds;  // at least one
        std::size_t max_idle = 8;     // per node's pool
        ScriptEngine engine = ScriptEngine::kAuto;
        const FunctionLibrary* library = nullptr;
        // Under Sentinel: the sentinels, the master's name and how to reach a sentinel. `seeds`
        // then holds one endpoint without an address, what the data servers share (user,
        // password, db, TLS).
        std::vector<Endpoint> sentinels;
        std::string master_name;
        SentinelConnect connect_sentinel;
    };

    Topology(Settings settings, Connect connect);
    ~Topology();
    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;

    // The pool of the node that serves `slot` (the one server outside a cluster). Discovers the
    // topology on first use: ConnectionError when no seed answers, ClusterError (a
    // ConfigurationError) when the seeds are not one cluster or the slot has no primary.
    ConnectionPool& pool_for(int slot);
    // For a caller that must not fail now, but retries its connections in the background (a
    // wake subscriber, whose waiter starts while Redis is away too): pool_for, or while the
    // topology cannot be discovered (no seed answers, or the server check refuses it) the
    // first seed's pool, whose connections then fail and are retried as any. The same failure
    // reaches the waiter's owner through its own calls (a Consumer's fetch).
    ConnectionPool& pool_for_later(int slot);
    // The pool of the node at `host`:`port` (the target of an ASK), made on first use.
    ConnectionPool& pool_at(const std::string& host, int port);
    // The pool of the node `conn` reaches (it runs calls made on `conn`): the one server, or
    // the cluster node at conn.where(); one the client does not know yet is the slot's.
    ConnectionPool& pool_of(const Connection& conn, int slot);
    // Whether `conn` reaches the node that serves `slot` now: a consumer's own connection is
    // replaced when not, so that its calls stop paying a redirection each.
    bool serves(const Connection& conn, int slot);
    // Every primary's pool: the one server, or each primary of the cluster's current map.
    std::vector<ConnectionPool*> primaries();
    bool cluster();
    // Whether the server is the master a set of sentinels names (and so may move).
    bool sentinel() const { return !settings_.sentinels.empty(); }

    // `listener` is called (on whichever thread learnt it, no lock of the topology held) when
    // the Sentinel master changes, also when it is first found. One at a time; null removes it,
    // waiting for a call under way. It must not call back into refresh().
    void on_master_change(std::function<void()> listener);

    // A node answered MOVED: the slot is served elsewhere from now on. The map is reloaded
    // once per burst (not within kRefreshInterval of the last load), so that a slot move
    // answered by MOVED to a thousand calls costs one CLUSTER SHARDS.
    void moved(const Redirect& redirect, const Endpoint& from);
    // A node of the map failed (refused connection, CLUSTERDOWN): reload the map, once per
    // burst, to learn of a failover. Under Sentinel (a master failed, or said READONLY): ask
    // the sentinels again, as often. Never throws: failures are logged.
    void refresh();
    // The sentinels announced a failover: ask them now, whenever they were last asked.
    void master_switched();

    static constexpr std::chrono::milliseconds kRefreshInterval{100};

  private:
    struct Snapshot {
        bool cluster = false;
        bool sentinel = false;  // owners holds the master the sentinels named
        SlotMap map;
        std::vector<ConnectionPool*> owners;  // per map primary; the server's pool alone else
    };

    std::shared_ptr<const Snapshot> snapshot();
    // Both with load_mutex_ held; true when the master changed (the listener is then told,
    // once the lock is released).
    bool discover();
    bool find_master();
    // find_master, a failure logged as `what` (callers go on with the master they knew).
    bool try_find_master(std::string_view what);  // with load_mutex_ held
    void master_changed();
    std::shared_ptr<const Snapshot> load(Connection& conn,  // with load_mutex_ held
                                         const Endpoint& asked);
    ConnectionPool& pool_locked(const Endpoint& endpoint);  // with pools_mutex_ held
    Endpoint node_endpoint(const std::string& host, int port, const std::string& tls_name) const;

    const Settings settings_;
    const Connect connect_;

    std::mutex load_mutex_;  // one discovery or map load at a time
    std::chrono::steady_clock::time_point loaded_at_{};
    std::shared_mutex snapshot_mutex_;
    std::shared_ptr<const Snapshot> snapshot_;  // null until discovered
    // The one server's pool, once discovery found no cluster: every call of a standalone
    // client takes it without a lock (it never changes).
    std::atomic<ConnectionPool*> server_{nullptr};
    // The Sentinel master's pool, once found: it changes with a failover.
    std::atomic<ConnectionPool*> master_{nullptr};
    std::unique_ptr<SentinelWatch> watch_;  // made with the first master found

    std::mutex listener_mutex_;  // held while the listener runs
    std::function<void()> listener_;

    // Pools live as long as the client: a lease in use points into one. A cluster's node set
    // changes rarely, so this grows by the nodes ever seen, not per call.
    std::mutex pools_mutex_;
    std::map<std::string, std::unique_ptr<ConnectionPool>> pools_;  // by host:port
};

}  // namespace delayq::detail
