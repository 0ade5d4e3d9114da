#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/redis_server.hpp"

namespace delayq::test {

struct RedisSentinelOptions {
    std::string master_name = "delayq";
    // How long the primary may be silent before a sentinel counts it down; a killed primary's
    // replica is the primary about 4 s after the kill with 1 s.
    std::chrono::milliseconds down_after{1000};
    std::chrono::milliseconds failover_timeout{3000};
    bool appendonly = false;                // so that data survives a restart
    std::vector<std::string> extra_args{};  // for the two data servers
    // Sentinels whose clients' port speaks TLS only; the data servers, the sentinels' links to
    // them and to each other (on a plain port of their own) stay plain.
    std::optional<RedisServerTls> sentinel_tls{};
};

// A primary, its replica and three sentinels (quorum 2) on loopback, each a RedisServer with its
// own directory. The constructor returns once the replica is linked and every sentinel knows
// the primary, the replica and the other sentinels. Errors are std::runtime_error.
class RedisSentinelSet {
  public:
    static constexpr std::size_t kSentinels = 3;

    explicit RedisSentinelSet(RedisSentinelOptions options = {});

    // redis+sentinel://127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3/<master name>
    std::string url() const;
    const std::string& master_name() const { return options_.master_name; }

    // The data servers: 0 starts as the primary, 1 as its replica.
    RedisServer& server(std::size_t i) { return *servers_.at(i); }
    RedisServer& sentinel(std::size_t i) { return *sentinels_.at(i); }
    // The data server the sentinels name now, and the other one.
    RedisServer& primary();
    RedisServer& replica();
    // SENTINEL GET-MASTER-ADDR-BY-NAME, asked of the first running sentinel.
    int current_primary_port() const;

    // SENTINEL FAILOVER: the replica becomes the primary and the former primary its replica
    // (see the .cpp for why the fixture does the latter itself). Awaited until settled.
    void failover();
    // Until the set has settled with `server` as the primary: every running sentinel names it,
    // it says so itself, no failover is under way, every sentinel knows the others, and each
    // could pick the other data server, if running, for a failover. After a kill of the
    // primary (server(i).kill()), this awaits the sentinels' own failover.
    void wait_for_primary(const RedisServer& server) const;
    // Starts a killed data server again: as a replica of the primary, unless it is the primary.
    // Awaited until settled.
    void restart(RedisServer& server);

  private:
    RawReply ask_sentinel(const std::vector<std::string>& args) const;
    // The index of the data server that is not `server`.
    std::size_t other_than(const RedisServer& server) const;
    // "" when every running sentinel names `primary` and it says it is one; else why not.
    std::string not_named(const RedisServer& primary) const;
    // wait_for_primary's condition: "" when it holds, else the first thing that does not.
    std::string unsettled(const RedisServer& primary) const;
    // REPLICAOF the primary `of`, awaited until the link is up.
    static void make_replica(RedisServer& server, const RedisServer& of);

    RedisSentinelOptions options_;
    std::array<std::unique_ptr<RedisServer>, 2> servers_;
    std::array<std::unique_ptr<RedisServer>, kSentinels> sentinels_;
};

}  // namespace delayq::test
