#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "delayq/options.hpp"
#include "queue_registry.hpp"
#include "redis/connection.hpp"
#include "redis/pool.hpp"
#include "redis/tls_context.hpp"
#include "redis/topology.hpp"
#include "redis/url.hpp"
#include "send_hub.hpp"

namespace delayq::detail {

// What every Queue and Consumer of one Client shares: where Redis is, the options, the pool.
class QueueCore;
class WakeHub;

class ClientCore {
  public:
    // `seeds`: one server, or seeds of one Redis Cluster (Topology).
    ClientCore(std::vector<Endpoint> seeds, ClientOptions options);
    // The master `url` names, through its sentinels (reach_sentinels applied to them).
    ClientCore(SentinelUrl url, ClientOptions options);
    ~ClientCore();
    ClientCore(const ClientCore&) = delete;
    ClientCore& operator=(const ClientCore&) = delete;

    // Where calls go: the pool of the node that serves a slot, every primary.
    Topology& topology() { return topology_; }
    // A pool for calls that touch no queue's keys (PING, TIME, the engine's status): the one
    // server, or the first primary of a cluster.
    ConnectionPool& any_pool() { return *topology_.primaries().front(); }
    const ClientOptions& options() const { return options_; }
    // What every waiter of this client shares (made, and its threads started, on first use).
    WakeHub& wake_hub();
    // What every queue's asynchronous sends share (its thread started on first use).
    SendHub& send_hub() { return send_hub_; }
    // The live queues, so that handles to one queue share its send line.
    QueueRegistry& queues() { return queues_; }

  private:
    // A new connection to one node. The first connection to each node (every primary of a
    // cluster) also checks the server; a failed check is repeated on the next connection.
    Connection open(const Endpoint& endpoint);
    // A new connection to one sentinel: no server check, the sentinels' own TLS.
    Connection open_sentinel(const Endpoint& endpoint);
    void check_server(Connection& conn, const Endpoint& endpoint);

    ClientOptions options_;
    std::unique_ptr<TlsContext> tls_;           // for rediss:// only
    std::unique_ptr<TlsContext> sentinel_tls_;  // for sentinels that speak TLS only
    std::mutex check_mutex_;
    // The nodes checked, host:port: bounded like the pools, by the nodes ever seen.
    std::set<std::string> checked_;
    Topology topology_;
    // After the topology: its threads use the pools. Stopped after every Queue (each holds
    // this client).
    SendHub send_hub_;
    std::mutex hub_mutex_;
    QueueRegistry queues_;
    // Last: its threads use the rest, so it stops first.
    std::unique_ptr<WakeHub> wake_hub_;
};

// The queue's shared core (one per name and options while a handle holds it); validates the
// name and options first.
std::shared_ptr<QueueCore> queue_core(const std::shared_ptr<ClientCore>& client,
                                      std::string_view name, const QueueOptions& options);

}  // namespace delayq::detail
