#include "support/redis_cluster.hpp"

#include <algorithm>
#include <stdexcept>

#include "support/await.hpp"

namespace delayq::test {
namespace {

std::string describe(const std::vector<std::string>& args) {
    std::string out;
    for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
    return out;
}

std::vector<std::string> node_args(const RedisClusterOptions& options) {
    std::vector<std::string> args = {
        "--cluster-enabled",      "yes",
        "--cluster-config-file",  "nodes.conf",
        "--cluster-node-timeout", std::to_string(options.node_timeout.count())};
    // A replica's first sync would otherwise wait 5 s (Redis 7's default) for others to share.
    args.insert(args.end(), {"--repl-diskless-sync-delay", "0"});
    // A replica is "loading", left out of CLUSTER SLOTS and of SHARDS' online nodes, until the
    // cluster learns of a replication offset above 0; on an idle cluster only the primary's
    // replication ping (every 10 s by default) moves the offset.
    args.insert(args.end(), {"--repl-ping-replica-period", "1"});
    if (options.tls) args.insert(args.end(), {"--tls-cluster", "yes", "--tls-replication", "yes"});
    args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
    return args;
}

std::string url_of(const std::vector<int>& ports, bool tls) {
    std::string out = tls ? "rediss://" : "redis://";
    for (std::size_t i = 0; i < ports.size(); ++i) {
        if (i > 0) out += ',';
        out += "127.0.0.1:" + std::to_string(ports[i]);
    }
    return out;
}

}  // namespace

RedisCluster::RedisCluster(RedisClusterOptions options) : options_(std::move(options)) {
    if (options_.primaries == 0) throw std::invalid_argument("a cluster needs a primary");
    const std::size_t count = options_.primaries * (1 + options_.replicas_per_primary);
    const RedisServerOptions server{.extra_args = node_args(options_),
                                    .tls = options_.tls,
                                    .appendonly = options_.appendonly,
                                    .environment = options_.environment,
                                    .reserve_bus_port = true};
    for (std::size_t i = 0; i < count; ++i) nodes_.push_back(std::make_unique<RedisServer>(server));
    for (std::size_t i = 0; i < count; ++i) ids_.push_back(call(i, {"CLUSTER", "MYID"}).str);
    create();
}

void RedisCluster::create() {
    const std::size_t primaries = options_.primaries;
    // Distinct config epochs before the nodes meet, as redis-cli --cluster create sets them:
    // otherwise every slot claim carries epoch 0 and the nodes resolve the collisions first.
    for (std::size_t i = 0; i < size(); ++i) {
        call(i, {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(i + 1)});
    }
    for (std::size_t p = 0; p < primaries; ++p) {
        call(p, {"CLUSTER", "ADDSLOTSRANGE", std::to_string(p * kClusterSlots / primaries),
                 std::to_string((p + 1) * kClusterSlots / primaries - 1)});
    }
    for (std::size_t i = 1; i < size(); ++i) {
        call(0, {"CLUSTER", "MEET", "127.0.0.1", std::to_string(node(i).port())});
    }
    // Each replica also meets its primary itself: it learns the primary's id in one handshake
    // instead of waiting for node 0's gossip, and REPLICATE needs the id known.
    const auto primary_of = [&](std::size_t r) {
        return (r - primaries) / options_.replicas_per_primary;
    };
    for (std::size_t r = primaries; r < size(); ++r) {
        call(r, {"CLUSTER", "MEET", "127.0.0.1", std::to_string(node(primary_of(r)).port())});
    }
    for (std::size_t r = primaries; r < size(); ++r) {
        const std::string& id = node_id(primary_of(r));
        await("replica :" + std::to_string(node(r).port()) + " knows its primary", [&] {
            const auto view = view_of(r);
            const bool known = std::any_of(view.begin(), view.end(), [&](const auto& n) {
                return n.id == id && !n.unsettled;
            });
            return known ? "" : "it does not yet know " + id;
        });
        call(r, {"CLUSTER", "REPLICATE", id});
    }
    wait_ok();
}

RawReply RedisCluster::call(std::size_t i, const std::vector<std::string>& args) const {
    RawReply reply = node(i).command(args);
    if (reply.is_error()) {
        throw std::runtime_error("node :" + std::to_string(node(i).port()) + " refused " +
                                 describe(args) + ": " + reply.str);
    }
    return reply;
}

std::vector<ClusterNodeView> RedisCluster::view_of(std::size_t i) const {
    return parse_cluster_nodes(call(i, {"CLUSTER", "NODES"}).str);
}

std::size_t RedisCluster::index_of_id(std::string_view id) const {
    const auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it == ids_.end()) throw std::runtime_error("no node has the id " + std::string(id));
    return static_cast<std::size_t>(it - ids_.begin());
}

std::size_t RedisCluster::index_of_port(int port) const {
    for (std::size_t i = 0; i < size(); ++i) {
        if (node(i).port() == port) return i;
    }
    throw std::runtime_error("no node has the port " + std::to_string(port));
}

std::vector<std::size_t> RedisCluster::primaries() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < size(); ++i) {
        if (!node(i).running()) continue;
        const RawReply role = call(i, {"ROLE"});
        if (!role.elements.empty() && role.elements.front().str == "master") out.push_back(i);
    }
    return out;
}

std::vector<std::size_t> RedisCluster::replicas() const {
    const std::vector<std::size_t> primary = primaries();
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < size(); ++i) {
        if (node(i).running() && std::find(primary.begin(), primary.end(), i) == primary.end()) {
            out.push_back(i);
        }
    }
    return out;
}

std::vector<std::size_t> RedisCluster::replicas_of(std::size_t primary) const {
    std::vector<std::size_t> out;
    for (const auto& n : view_of(primary)) {
        if (n.primary_id == node_id(primary)) out.push_back(index_of_id(n.id));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t RedisCluster::primary_of_slot(int slot) const {
    for (std::size_t i = 0; i < size(); ++i) {
        if (!node(i).running()) continue;
        const std::string owner = owner_of_slot(view_of(i), slot);
        if (owner.empty()) throw std::runtime_error("no node serves slot " + std::to_string(slot));
        return index_of_id(owner);
    }
    throw std::runtime_error("no node of the cluster is running");
}

std::string RedisCluster::url() const {
    return url_of({node(primaries().at(0)).port()}, options_.tls.has_value());
}

std::string RedisCluster::seeds_url() const {
    std::vector<int> ports;
    for (const std::size_t i : primaries()) ports.push_back(node(i).port());
    return url_of(ports, options_.tls.has_value());
}

void RedisCluster::failover(std::size_t replica) {
    call(replica, {"CLUSTER", "FAILOVER"});
    await_settled("node :" + std::to_string(node(replica).port()) + " is a primary",
                  [&](const std::vector<ClusterNodeReport>& reports) -> std::string {
                      for (const auto& n : reports.at(replica).view) {
                          if (n.myself && n.primary) return "";
                      }
                      return "it is not a primary yet";
                  });
}

void RedisCluster::kill(std::size_t i) { node(i).kill(); }

void RedisCluster::restart(std::size_t i) {
    node(i).start();
    wait_ok();
}

void RedisCluster::wait_ok() const { await_settled("the cluster has settled"); }

std::vector<ClusterNodeReport> RedisCluster::reports() const {
    std::vector<ClusterNodeReport> out;
    for (std::size_t i = 0; i < size(); ++i) {
        ClusterNodeReport& r = out.emplace_back();
        r.port = node(i).port();
        r.running = node(i).running();
        r.id = node_id(i);
        if (!r.running) continue;
        r.cluster_info = call(i, {"CLUSTER", "INFO"}).str;
        r.view = view_of(i);
        r.health = parse_shards_health(call(i, {"CLUSTER", "SHARDS"}));
        r.replication = call(i, {"INFO", "replication"}).str;
    }
    return out;
}

void RedisCluster::await_settled(std::string_view what, const Also& also) const {
    await(what, [&]() -> std::string {
        try {
            const auto now = reports();
            std::string problem = cluster_unsettled(now);
            if (problem.empty() && also) problem = also(now);
            return problem;
        } catch (const std::runtime_error& e) {  // a node restarting, or still loading
            return e.what();
        }
    });
}

std::string RedisCluster::name_served_by(std::size_t primary, std::string_view stem) const {
    for (int i = 0; i < 100'000; ++i) {
        std::string name = std::string(stem) + std::to_string(i);
        if (primary_of_slot(slot_of(name)) == primary) return name;
    }
    throw std::runtime_error("no name from " + std::string(stem) + " lands on node " +
                             std::to_string(primary));
}

}  // namespace delayq::test
