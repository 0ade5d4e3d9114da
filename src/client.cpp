#include "delayq/client.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "client_core.hpp"
#include "delayq/error.hpp"
#include "hex.hpp"
#include "keys.hpp"
#include "log.hpp"
#include "queue_core.hpp"
#include "queue_index.hpp"
#include "redis/info.hpp"
#include "redis/key_slot.hpp"
#include "redis/permission.hpp"
#include "redis/url_secret.hpp"
#include "scripts.hpp"
#include "validate.hpp"
#include "waiter/wake_hub.hpp"

namespace delayq {
namespace detail {
namespace {

int major_version(const std::string& version) {
    int major = 0;
    std::from_chars(version.data(), version.data() + version.size(), major);
    return major;
}

// Made once per client: reading the CA bundle and the keys is far too slow per connection.
std::unique_ptr<TlsContext> make_tls(const Endpoint& endpoint, const TlsOptions& options) {
    if (!endpoint.tls) {
        if (options.any_set()) {
            throw InvalidArgument(
                "TLS options are set but the Redis URL is not rediss://, so "
                "the connection would not be encrypted: use rediss://");
        }
        return nullptr;
    }
    if (options.insecure_skip_verify) {
        log().warn(
            "TLS verification is OFF for Redis at {}: the server is not authenticated, "
            "so anyone on the network path can read and change the messages. For tests "
            "only.",
            endpoint.describe());
    }
    return std::make_unique<TlsContext>(options);
}

// The sentinels of `url` as the options say to reach them: their own user and password, and
// TLS when the URL asks it for the data servers (rediss+sentinel://) or the sentinel TLS
// options are set.
void reach_sentinels(SentinelUrl& url, const SentinelOptions& options) {
    for (Endpoint& sentinel : url.sentinels) {
        sentinel.user = options.user;
        sentinel.password = options.password.value_or("");
        sentinel.tls = url.data.tls || options.tls.any_set();
    }
}

std::unique_ptr<TlsContext> make_sentinel_tls(const std::vector<Endpoint>& sentinels,
                                              const ClientOptions& options) {
    if (!sentinels.front().tls) return nullptr;
    // The data servers' settings serve both, unless the sentinels have their own.
    return make_tls(sentinels.front(),
                    options.sentinel.tls.any_set() ? options.sentinel.tls : options.tls);
}

}  // namespace

ClientCore::ClientCore(SentinelUrl url, ClientOptions options)
    : options_(std::move(options)),
      tls_(make_tls(url.data, options_.tls)),
      sentinel_tls_(make_sentinel_tls(url.sentinels, options_)),
      topology_(Topology::Settings{.seeds = {url.data},
                                   .max_idle = options_.pool_size,
                                   .engine = options_.engine,
                                   .library = &scripts::kLibrary,
                                   .sentinels = std::move(url.sentinels),
                                   .master_name = std::move(url.master_name),
                                   .connect_sentinel =
                                       [this](const Endpoint& e) { return open_sentinel(e); }},
                [this](const Endpoint& endpoint) { return open(endpoint); }) {}

ClientCore::ClientCore(std::vector<Endpoint> seeds, ClientOptions options)
    : options_(std::move(options)),
      tls_(make_tls(seeds.at(0), options_.tls)),
      topology_(Topology::Settings{.seeds = std::move(seeds),
                                   .max_idle = options_.pool_size,
                                   .engine = options_.engine,
                                   .library = &scripts::kLibrary,
                                   .sentinels = {},
                                   .master_name = {},
                                   .connect_sentinel = {}},
                [this](const Endpoint& endpoint) { return open(endpoint); }) {}

ClientCore::~ClientCore() = default;

WakeHub& ClientCore::wake_hub() {
    std::lock_guard lock(hub_mutex_);
    if (!wake_hub_) wake_hub_ = std::make_unique<WakeHub>(*this);
    return *wake_hub_;
}

Connection ClientCore::open(const Endpoint& endpoint) {
    Connection conn(endpoint, Timeouts{options_.connect_timeout, options_.command_timeout},
                    tls_.get());
    const std::string node = endpoint.describe();
    std::lock_guard lock(check_mutex_);
    if (!checked_.contains(node)) {
        check_server(conn, endpoint);
        checked_.insert(node);
    }
    return conn;
}

Connection ClientCore::open_sentinel(const Endpoint& endpoint) {
    return Connection(endpoint, Timeouts{options_.connect_timeout, options_.command_timeout},
                      sentinel_tls_.get());
}

void ClientCore::check_server(Connection& conn, const Endpoint& endpoint) {
    Reply info = conn.command({"INFO", "server", "memory"});
    if (info.is_error()) {
        std::string text_msg = "cannot read INFO from Redis at " + endpoint.describe() + " (" +
                               info.str + "), so its version and maxmemory-policy are unknown";
        // Strict means proven safe, not assumed safe.
        if (options_.refuse_evicting_server) throw ConfigurationError(text_msg);
        log().warn("{}; server checks skipped", text_msg);
        return;
    }
    const std::string& text = info.as_string();
    std::string version = info_field(text, "redis_version");
    if (major_version(version) < 7) {
        throw ConfigurationError("Redis at " + endpoint.describe() + " is version " + version +
                                 "; delayq needs Redis 7.0 or later (script flags, SPUBLISH)");
    }
    std::string policy = info_field(text, "maxmemory_policy");
    if (evicting_policy(policy)) {
        std::string text_msg =
            "Redis at " + endpoint.describe() + " has maxmemory-policy " + policy +
            ": when memory runs out it may evict queue keys, and an evicted key is a lost "
            "message. Fix: CONFIG SET maxmemory-policy noeviction (and in redis.conf)";
        if (options_.refuse_evicting_server) throw ConfigurationError(text_msg);
        log().warn("{}", text_msg);
    }
}

}  // namespace detail

Client::Client(std::string_view url, ClientOptions options) {
    if (options.connect_timeout.count() < 1 || options.command_timeout.count() < 1) {
        throw InvalidArgument("connect_timeout and command_timeout must be at least 1 ms");
    }
    if (detail::is_sentinel_url(url)) {
        detail::SentinelUrl sentinel = detail::parse_sentinel_url(url);
        if (options.password) {
            if (options.password->empty()) throw InvalidArgument("the Redis password is empty");
            detail::apply_password(sentinel.data, url, *options.password);
        }
        if (options.sentinel.password && options.sentinel.password->empty()) {
            throw InvalidArgument("the sentinels' password is empty");
        }
        detail::reach_sentinels(sentinel, options.sentinel);
        core_ = std::make_shared<detail::ClientCore>(std::move(sentinel), std::move(options));
        return;
    }
    if (options.sentinel.any_set()) {
        throw InvalidArgument(
            "sentinel options are set but the Redis URL is not redis+sentinel://, so no "
            "sentinel is asked: use redis+sentinel://host:port,.../master-name");
    }
    // One server, or the seeds of one Redis Cluster (the first that answers tells which).
    std::vector<detail::Endpoint> seeds = detail::parse_seeds(url);
    if (options.password) {
        if (options.password->empty()) throw InvalidArgument("the Redis password is empty");
        for (detail::Endpoint& seed : seeds) detail::apply_password(seed, url, *options.password);
    }
    core_ = std::make_shared<detail::ClientCore>(std::move(seeds), std::move(options));
}

namespace detail {

std::shared_ptr<QueueCore> queue_core(const std::shared_ptr<ClientCore>& client,
                                      std::string_view name, const QueueOptions& options) {
    validate_queue_name(name);
    validate_queue_options(options);
    return client->queues().get(name, options, [&] {
        return std::make_shared<QueueCore>(client, std::string(name), options);
    });
}

}  // namespace detail

using detail::queue_core;

Queue Client::queue(std::string_view name, QueueOptions options) const {
    return Queue(queue_core(core_, name, options));
}

QueueAdmin Client::admin(std::string_view name) const {
    return QueueAdmin(queue_core(core_, name, {}));
}

Leases Client::leases(std::string_view name) const { return Leases(queue_core(core_, name, {})); }

Schedules Client::schedules(std::string_view queue) const {
    return Schedules(queue_core(core_, queue, {}));
}

PushTargets Client::push_targets(std::string_view queue) const {
    return PushTargets(queue_core(core_, queue, {}));
}

std::vector<std::string> Client::schedule_queues() const {
    return detail::indexed_queues(*core_, detail::QueueIndex::kSchedules);
}

std::vector<std::string> Client::push_queues() const {
    return detail::indexed_queues(*core_, detail::QueueIndex::kPushTargets);
}

std::vector<std::string> Client::queues() const {
    std::vector<std::string> names;
    // A cluster's queues are spread over its primaries: each is scanned.
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        std::string cursor = "0";
        do {
            detail::Reply r =
                conn->command({"SCAN", cursor, "MATCH", detail::kStatsPattern, "COUNT", "1000"});
            detail::check_permission(r, "SCAN");
            if (r.is_error()) throw ServerError("SCAN failed: " + r.str);
            cursor = r.at(0).as_string();
            for (const auto& key : r.at(1).as_array()) {
                if (auto name = detail::queue_of_stats_key(key.as_string())) {
                    names.push_back(*name);
                }
            }
        } while (cursor != "0");
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

EngineStatus Client::engine() const {
    // Each primary of a cluster decides for its own slots' calls: the first that runs scripts
    // says so, named, else every one runs the library.
    EngineStatus out;
    for (detail::ConnectionPool* pool : core_->topology().primaries()) {
        auto conn = pool->acquire();
        detail::NodeEngine& node = pool->engine();
        node.use_functions(*conn);
        out = node.status();
        if (out.mode == ScriptEngine::kScripts) {
            if (core_->topology().cluster()) out.reason = conn->where() + ": " + out.reason;
            return out;
        }
    }
    return out;
}

FunctionAdmin Client::functions() const { return FunctionAdmin(core_); }

void Client::ping() const {
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        detail::Reply r = conn->command({"PING"});
        detail::check_permission(r, "PING");
        if (r.is_error()) throw ServerError("PING failed: " + r.str);
    }
}

std::string Client::shared_secret() const {
    std::array<unsigned char, detail::kSharedSecretBytes> fresh{};
    if (RAND_bytes(fresh.data(), static_cast<int>(fresh.size())) != 1) {
        throw Error("shared secret: no random bytes from OpenSSL");
    }
    const std::string hex = detail::lower_hex(fresh);
    constexpr std::string_view kDigits = "0123456789abcdef";
    // One round trip, and no window between a GET and a SET for two servers starting at once.
    auto conn = core_->topology().pool_for(detail::key_slot(detail::kSharedSecretKey)).acquire();
    detail::Reply r =
        conn->command({"SET", std::string(detail::kSharedSecretKey), hex, "NX", "GET"});
    detail::check_permission(r, "SET");
    if (r.is_error())
        throw ServerError("SET " + std::string(detail::kSharedSecretKey) + ": " + r.str);
    const std::string stored = r.is_nil() ? hex : r.as_string();
    if (stored.size() != hex.size() || stored.find_first_not_of(kDigits) != std::string::npos) {
        throw ServerError(std::string(detail::kSharedSecretKey) +
                          " holds something other than 64 lowercase hex digits: delete it, "
                          "and a new secret is made");
    }
    std::string out(detail::kSharedSecretBytes, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
        out[i] = static_cast<char>(nibble(stored[2 * i]) * 16 + nibble(stored[2 * i + 1]));
    }
    return out;
}

TimePoint Client::server_time() const {
    auto conn = core_->any_pool().acquire();
    detail::Reply r = conn->command({"TIME"});
    detail::check_permission(r, "TIME");
    if (r.is_error()) throw ServerError("TIME failed: " + r.str);
    std::int64_t seconds = 0;
    std::int64_t micros = 0;
    const std::string& s = r.at(0).as_string();
    const std::string& us = r.at(1).as_string();
    if (std::from_chars(s.data(), s.data() + s.size(), seconds).ec != std::errc{} ||
        std::from_chars(us.data(), us.data() + us.size(), micros).ec != std::errc{}) {
        throw ServerError("TIME answered something that is not a time");
    }
    return TimePoint(Duration(seconds * 1000 + micros / 1000));
}

}  // namespace delayq
