#include "redis/topology.hpp"

#include "delayq/error.hpp"
#include "log.hpp"
#include "redis/info.hpp"

namespace delayq::detail {
namespace {

bool unknown_subcommand(const Reply& reply) {
    return reply.is_error() && (reply.str.find("unknown subcommand") != std::string::npos ||
                                reply.str.find("Unknown subcommand") != std::string::npos);
}

}  // namespace

Topology::Topology(Settings settings, Connect connect)
    : settings_(std::move(settings)), connect_(std::move(connect)) {
    if (settings_.seeds.empty()) throw InvalidArgument("a Redis URL names no server");
}

Endpoint Topology::node_endpoint(const std::string& host, int port,
                                 const std::string& tls_name) const {
    // A discovered node takes the seeds' credentials and TLS; a cluster has database 0 only.
    Endpoint ep = settings_.seeds.front();
    ep.host = host;
    ep.port = port;
    ep.unix_path.clear();
    ep.tls_name = tls_name == host ? std::string() : tls_name;
    return ep;
}

ConnectionPool& Topology::pool_locked(const Endpoint& endpoint) {
    auto& pool = pools_[endpoint.describe()];
    if (!pool) {
        pool = std::make_unique<ConnectionPool>(endpoint, connect_, settings_.max_idle,
                                                settings_.engine, *settings_.library);
    }
    return *pool;
}

ConnectionPool& Topology::pool_for_later(int slot) {
    try {
        return pool_for(slot);
    } catch (const Error&) {
        std::lock_guard lock(pools_mutex_);
        return pool_locked(settings_.seeds.front());
    }
}

ConnectionPool& Topology::pool_at(const std::string& host, int port) {
    const Endpoint ep = node_endpoint(host, port, host);
    std::lock_guard lock(pools_mutex_);
    return pool_locked(ep);
}

std::shared_ptr<const Topology::Snapshot> Topology::snapshot() {
    {
        std::shared_lock lock(snapshot_mutex_);
        if (snapshot_) return snapshot_;
    }
    std::lock_guard loading(load_mutex_);
    {
        std::shared_lock lock(snapshot_mutex_);
        if (snapshot_) return snapshot_;
    }
    discover();
    std::shared_lock lock(snapshot_mutex_);
    return snapshot_;
}

void Topology::discover() {
    std::string failures;
    for (const Endpoint& seed : settings_.seeds) {
        std::optional<Connection> conn;
        try {
            conn.emplace(connect_(seed));
        } catch (const ConnectionError& e) {
            // The one server's failure is the caller's, as it is (a TimeoutError stays one).
            if (settings_.seeds.size() == 1) throw;
            // One dead seed must not stop a start: the next may answer.
            failures += (failures.empty() ? "" : "; ") + std::string(e.what());
            continue;
        }
        const Reply info = conn->command({"INFO", "cluster"});
        const bool cluster =
            !info.is_error() && info_field(info.as_string(), "cluster_enabled") == "1";
        std::shared_ptr<const Snapshot> next;
        if (cluster) {
            next = load(*conn, seed);
        } else {
            if (settings_.seeds.size() > 1) {
                throw ConfigurationError("the Redis URL names " +
                                         std::to_string(settings_.seeds.size()) + " servers, but " +
                                         seed.describe() +
                                         " does not run in cluster mode: a list of servers names "
                                         "the seeds of one Redis Cluster");
            }
            auto standalone = std::make_shared<Snapshot>();
            std::lock_guard lock(pools_mutex_);
            standalone->owners.push_back(&pool_locked(seed));
            server_.store(standalone->owners.front(), std::memory_order_release);
            next = std::move(standalone);
        }
        std::unique_lock lock(snapshot_mutex_);
        snapshot_ = std::move(next);
        loaded_at_ = std::chrono::steady_clock::now();
        return;
    }
    throw ConnectionError("no Redis seed answered: " + failures);
}

std::shared_ptr<const Topology::Snapshot> Topology::load(Connection& conn, const Endpoint& asked) {
    const bool tls = settings_.seeds.front().tls;
    Reply shards = conn.command({"CLUSTER", "SHARDS"});
    auto next = std::make_shared<Snapshot>();
    next->cluster = true;
    if (unknown_subcommand(shards)) {
        const Reply slots = conn.command({"CLUSTER", "SLOTS"});
        if (slots.is_error()) throw ServerError("CLUSTER SLOTS failed: " + slots.str);
        next->map = SlotMap::from_slots(slots, asked.host);
    } else if (shards.is_error()) {
        throw ServerError("CLUSTER SHARDS failed: " + shards.str);
    } else {
        next->map = SlotMap::from_shards(shards, tls, asked.host);
    }
    std::lock_guard lock(pools_mutex_);
    for (const ClusterNode& node : next->map.primaries()) {
        next->owners.push_back(&pool_locked(node_endpoint(node.host, node.port, node.tls_name)));
    }
    return next;
}

ConnectionPool& Topology::pool_for(int slot) {
    if (ConnectionPool* server = server_.load(std::memory_order_acquire)) return *server;
    auto snap = snapshot();
    if (!snap->cluster) return *snap->owners.front();
    for (int attempt = 0;; ++attempt) {
        const ClusterNode* node = snap->map.primary(slot);
        if (node != nullptr) {
            const auto index = static_cast<std::size_t>(node - snap->map.primaries().data());
            return *snap->owners[index];
        }
        if (attempt > 0) {
            throw ConnectionError("no primary of the Redis Cluster serves slot " +
                                  std::to_string(slot) + " (is it failing over?)");
        }
        refresh();
        snap = snapshot();
    }
}

ConnectionPool& Topology::pool_of(const Connection& conn, int slot) {
    if (ConnectionPool* server = server_.load(std::memory_order_acquire)) return *server;
    const auto snap = snapshot();
    if (!snap->cluster) return *snap->owners.front();
    {
        std::lock_guard lock(pools_mutex_);
        if (const auto it = pools_.find(conn.where()); it != pools_.end()) return *it->second;
    }
    return pool_for(slot);
}

bool Topology::serves(const Connection& conn, int slot) {
    return pool_for(slot).address() == conn.where();
}

std::vector<ConnectionPool*> Topology::primaries() { return snapshot()->owners; }

bool Topology::cluster() { return snapshot()->cluster; }

void Topology::moved(const Redirect& redirect, const Endpoint& from) {
    const std::string host = redirect.host.empty() ? from.host : redirect.host;
    {
        std::unique_lock lock(snapshot_mutex_);
        if (!snapshot_ || !snapshot_->cluster) return;
        const ClusterNode* now = snapshot_->map.primary(redirect.slot);
        if (now == nullptr || now->host != host || now->port != redirect.port) {
            // Until the next load, this slot alone is known to have moved.
            auto next = std::make_shared<Snapshot>(*snapshot_);
            next->map.assign(ClusterNode{host, redirect.port, host}, redirect.slot, redirect.slot);
            next->owners.clear();
            std::lock_guard pools(pools_mutex_);
            for (const ClusterNode& node : next->map.primaries()) {
                next->owners.push_back(
                    &pool_locked(node_endpoint(node.host, node.port, node.tls_name)));
            }
            snapshot_ = std::move(next);
        }
    }
    refresh();
}

void Topology::refresh() {
    std::unique_lock loading(load_mutex_, std::try_to_lock);
    // Another thread is loading: its map is as new as this one's would be.
    if (!loading.owns_lock()) return;
    if (std::chrono::steady_clock::now() - loaded_at_ < kRefreshInterval) return;
    std::vector<ConnectionPool*> nodes;
    {
        std::shared_lock lock(snapshot_mutex_);
        if (!snapshot_ || !snapshot_->cluster) return;
        nodes = snapshot_->owners;
    }
    loaded_at_ = std::chrono::steady_clock::now();
    for (ConnectionPool* pool : nodes) {
        try {
            auto conn = pool->acquire();
            auto next = load(*conn, pool->endpoint());
            std::unique_lock lock(snapshot_mutex_);
            snapshot_ = std::move(next);
            return;
        } catch (const Error& e) {
            // A failed primary cannot say who took over; another node can.
            log().warn("cannot load the Redis Cluster's slot map from {}: {}",
                       pool->endpoint().describe(), e.what());
        }
    }
}

}  // namespace delayq::detail
