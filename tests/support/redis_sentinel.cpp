#include "support/redis_sentinel.hpp"

#include <algorithm>
#include <stdexcept>

#include "support/await.hpp"
#include "support/reply_fields.hpp"

namespace delayq::test {
namespace {

// What a sentinel needs of a replica to pick it for a failover (sentinelSelectSlave): flags
// without s_down or disconnected, and an INFO answer less than 3 INFO periods (10 s) old. Not
// the role that INFO reported: a former primary the fixture made a replica may still be reported
// as a primary until the next INFO, up to 10 s on, and Sentinel picks it all the same.
constexpr long long kInfoValidityMs = 30'000;

std::string port_text(const RedisServer& server) { return std::to_string(server.port()); }

std::string role_of(const RedisServer& server) {
    const RawReply role = server.command({"ROLE"});
    return role.elements.empty() ? "" : role.elements.front().str;
}

}  // namespace

RedisSentinelSet::RedisSentinelSet(RedisSentinelOptions options) : options_(std::move(options)) {
    std::vector<std::string> data_args = {
        // A replica's first sync would otherwise wait 5 s (Redis 7's default) for others to
        // share it; both get it, as either may be the primary.
        "--repl-diskless-sync-delay", "0"};
    data_args.insert(data_args.end(), options_.extra_args.begin(), options_.extra_args.end());
    // Replication by command rather than --replicaof, so that neither command line fixes a
    // role that failovers change.
    for (auto& s : servers_) {
        s = std::make_unique<RedisServer>(
            RedisServerOptions{.extra_args = data_args, .appendonly = options_.appendonly});
    }
    make_replica(server(1), server(0));
    const std::string& name = options_.master_name;
    for (auto& s : sentinels_) {
        // TLS sentinels keep a plain port too: they reach each other on the port they
        // announce, plain as their links to the data servers (tls-replication no).
        std::vector<std::string> plain_port;
        if (options_.sentinel_tls) plain_port = {"--port", std::to_string(free_port())};
        s = std::make_unique<RedisServer>(RedisServerOptions{
            .extra_args = plain_port,
            .tls = options_.sentinel_tls,
            .config_lines = {"sentinel monitor " + name + " 127.0.0.1 " + port_text(server(0)) +
                                 " 2",
                             "sentinel down-after-milliseconds " + name + " " +
                                 std::to_string(options_.down_after.count()),
                             "sentinel failover-timeout " + name + " " +
                                 std::to_string(options_.failover_timeout.count())},
            .sentinel = true});
    }
    // Sentinels learn of the replica from the primary's INFO at once, but of each other only
    // from hello messages on the primary, every 2 s (SENTINEL_PUBLISH_PERIOD, fixed): the set
    // is ready about 2 s after it starts. Without the others no sentinel could vote a killed
    // primary down.
    wait_for_primary(server(0));
}

std::string RedisSentinelSet::url() const {
    std::string out = "redis+sentinel://";
    for (std::size_t i = 0; i < kSentinels; ++i) {
        if (i > 0) out += ',';
        out += "127.0.0.1:" + port_text(*sentinels_[i]);
    }
    return out + "/" + options_.master_name;
}

RawReply RedisSentinelSet::ask_sentinel(const std::vector<std::string>& args) const {
    for (const auto& s : sentinels_) {
        if (!s->running()) continue;
        RawReply reply = s->command(args);
        if (reply.is_error()) {
            throw std::runtime_error("sentinel :" + port_text(*s) + " refused " + args.at(1) +
                                     ": " + reply.str);
        }
        return reply;
    }
    throw std::runtime_error("no sentinel is running");
}

int RedisSentinelSet::current_primary_port() const {
    const RawReply addr = ask_sentinel({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", master_name()});
    if (addr.elements.size() != 2) throw std::runtime_error("the sentinel names no primary");
    return std::stoi(addr.elements[1].str);
}

RedisServer& RedisSentinelSet::primary() {
    const int port = current_primary_port();
    for (auto& s : servers_) {
        if (s->port() == port) return *s;
    }
    throw std::runtime_error("the sentinels name :" + std::to_string(port) + ", not in the set");
}

RedisServer& RedisSentinelSet::replica() { return *servers_[other_than(primary())]; }

std::size_t RedisSentinelSet::other_than(const RedisServer& server) const {
    return &server == servers_[0].get() ? 1 : 0;
}

std::string RedisSentinelSet::not_named(const RedisServer& primary) const {
    for (const auto& s : sentinels_) {
        if (!s->running()) continue;
        const RawReply addr = s->command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", master_name()});
        if (addr.elements.size() != 2 || addr.elements[1].str != port_text(primary)) {
            return "sentinel :" + port_text(*s) + " names another server";
        }
    }
    return role_of(primary) == "master" ? "" : "it does not say it is a primary";
}

std::string RedisSentinelSet::unsettled(const RedisServer& primary) const {
    if (std::string problem = not_named(primary); !problem.empty()) return problem;
    const RedisServer& replica = *servers_[other_than(primary)];
    for (const auto& s : sentinels_) {
        if (!s->running()) continue;
        const std::string who = "sentinel :" + port_text(*s);
        auto master = reply_fields(s->command({"SENTINEL", "MASTER", master_name()}));
        if (master["flags"] != "master") return who + " sees the primary " + master["flags"];
        if (s->command({"SENTINEL", "SENTINELS", master_name()}).elements.size() !=
            kSentinels - 1) {
            return who + " does not know every other sentinel";
        }
        if (!replica.running()) continue;
        const RawReply known = s->command({"SENTINEL", "REPLICAS", master_name()});
        const bool pickable =
            std::any_of(known.elements.begin(), known.elements.end(), [&](const RawReply& entry) {
                auto seen = reply_fields(entry);
                return seen["port"] == port_text(replica) && seen["flags"] == "slave" &&
                       !seen["info-refresh"].empty() &&
                       std::stoll(seen["info-refresh"]) < kInfoValidityMs;
            });
        if (!pickable) return who + " could not pick :" + port_text(replica) + " for a failover";
    }
    return "";
}

void RedisSentinelSet::wait_for_primary(const RedisServer& server) const {
    await("the set has settled with :" + port_text(server) + " as its primary",
          [&]() -> std::string {
              try {
                  return unsettled(server);
              } catch (const std::runtime_error& e) {  // a server restarting
                  return e.what();
              }
          });
}

void RedisSentinelSet::failover() {
    RedisServer& old = primary();
    RedisServer& next = replica();
    ask_sentinel({"SENTINEL", "FAILOVER", master_name()});
    await("the sentinels name :" + port_text(next), [&] { return not_named(next); });
    // Sentinel itself would make the former primary a replica of the new one only 8 s after it
    // saw the change (SENTINEL_PUBLISH_PERIOD * 4, in case a newer configuration comes); until
    // then it would stay a primary that no sentinel names, with the set unable to fail back.
    if (old.running()) make_replica(old, next);
    wait_for_primary(next);
}

void RedisSentinelSet::restart(RedisServer& server) {
    server.start();
    if (current_primary_port() != server.port()) make_replica(server, primary());
    wait_for_primary(primary());
}

void RedisSentinelSet::make_replica(RedisServer& server, const RedisServer& of) {
    const RawReply reply = server.command({"REPLICAOF", "127.0.0.1", port_text(of)});
    if (reply.is_error()) throw std::runtime_error("REPLICAOF refused: " + reply.str);
    await("replica :" + port_text(server) + " is linked to :" + port_text(of), [&] {
        const std::string info = server.command({"INFO", "replication"}).str;
        const bool linked = info.find("master_port:" + port_text(of) + "\r") != std::string::npos &&
                            info.find("master_link_status:up") != std::string::npos;
        return linked ? "" : "not yet";
    });
}

}  // namespace delayq::test
