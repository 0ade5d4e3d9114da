#include "redis/topology.hpp"

#include <thread>

#include "delayq/error.hpp"
#include "log.hpp"
#include "redis/info.hpp"
#include "redis/permission.hpp"
#include "redis/sentinel_watch.hpp"

namespace delayq::detail {
namespace {

bool unknown_subcommand(const Reply& reply) {
    return reply.is_error() && (reply.str.find("unknown subcommand") != std::string::npos ||
                                reply.str.find("Unknown subcommand") != std::string::npos);
}

// How often a master the sentinels name is asked ROLE before the client gives up for now: a
// sentinel may name a promoted replica a moment before it takes the role.
constexpr int kRoleChecks = 3;
constexpr std::chrono::milliseconds kRoleRecheck{100};

}  // namespace

Topology::Topology(Settings settings, Connect connect)
    : settings_(std::move(settings)), connect_(std::move(connect)) {
    if (settings_.seeds.empty()) throw InvalidArgument("a Redis URL names no server");
}

Topology::~Topology() {
    if (watch_) {
        watch_->request_stop();
        watch_->join();
    }
}

void Topology::on_master_change(std::function<void()> listener) {
    std::lock_guard lock(listener_mutex_);
    listener_ = std::move(listener);
}

void Topology::master_changed() {
    std::lock_guard lock(listener_mutex_);
    if (listener_) listener_();
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
    bool changed = false;
    {
        std::lock_guard loading(load_mutex_);
        {
            std::shared_lock lock(snapshot_mutex_);
            if (snapshot_) return snapshot_;
        }
        changed = discover();
    }
    if (changed) master_changed();
    std::shared_lock lock(snapshot_mutex_);
    return snapshot_;
}

bool Topology::discover() {
    if (sentinel()) {
        // Throws until a sentinel names a master that says it is one.
        const bool changed = find_master();
        if (!watch_) {
            watch_ = std::make_unique<SentinelWatch>(settings_.sentinels, settings_.master_name,
                                                     settings_.connect_sentinel,
                                                     [this] { master_switched(); });
            watch_->start();
        }
        return changed;
    }
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
        return false;
    }
    throw ConnectionError("no Redis seed answered: " + failures);
}

bool Topology::find_master() {
    loaded_at_ = std::chrono::steady_clock::now();
    for (int check = 1;; ++check) {
        const MasterAddress at =
            ask_sentinels(settings_.sentinels, settings_.master_name, settings_.connect_sentinel);
        const Endpoint endpoint = node_endpoint(at.host, at.port, at.host);
        ConnectionPool* pool = nullptr;
        {
            std::lock_guard lock(pools_mutex_);
            pool = &pool_locked(endpoint);
        }
        // A connection the pool keeps: the first calls need one anyway.
        std::string role;
        {
            auto conn = pool->acquire();
            const Reply reply = conn->command({"ROLE"});
            check_permission(reply, "ROLE");
            role = parse_role(reply);
        }
        if (role == "master") {
            auto next = std::make_shared<Snapshot>();
            next->sentinel = true;
            next->owners.push_back(pool);
            std::unique_lock lock(snapshot_mutex_);
            const bool changed = !snapshot_ || snapshot_->owners.front() != pool;
            snapshot_ = std::move(next);
            master_.store(pool, std::memory_order_release);
            if (changed) {
                log().info("Redis master {} is at {} (named by the sentinels)",
                           settings_.master_name, endpoint.describe());
            }
            return changed;
        }
        if (check == kRoleChecks) {
            throw ConnectionError("the sentinels name " + endpoint.describe() +
                                  " as the Redis master " + settings_.master_name +
                                  ", but it says it is a " + role + " (asked " +
                                  std::to_string(kRoleChecks) + " times; a failover under way?)");
        }
        std::this_thread::sleep_for(kRoleRecheck * check);
    }
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
    if (ConnectionPool* master = master_.load(std::memory_order_acquire)) return *master;
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
    // A Sentinel client's connection may reach a former master: its calls run there (and meet
    // READONLY) with that node's engine.
    if (!snap->cluster && !snap->sentinel) return *snap->owners.front();
    {
        std::lock_guard lock(pools_mutex_);
        if (const auto it = pools_.find(conn.where()); it != pools_.end()) return *it->second;
    }
    return pool_for(slot);
}

bool Topology::serves(const Connection& conn, int slot) {
    return pool_for(slot).address() == conn.where();
}

bool Topology::try_find_master(std::string_view what) {
    try {
        return find_master();
    } catch (const Error& e) {
        log().warn("{} {}: {}", what, settings_.master_name, e.what());
        return false;
    }
}

void Topology::master_switched() {
    bool changed = false;
    {
        std::lock_guard loading(load_mutex_);
        changed =
            try_find_master("the sentinels announced a failover, but cannot name the master of");
    }
    if (changed) master_changed();
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
    if (sentinel()) {
        {
            // Not found yet: the next call's discovery finds it (and starts the watch).
            std::shared_lock lock(snapshot_mutex_);
            if (!snapshot_) return;
        }
        const bool changed = try_find_master("cannot learn from the sentinels the Redis master");
        loading.unlock();
        if (changed) master_changed();
        return;
    }
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
