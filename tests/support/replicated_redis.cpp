#include "support/replicated_redis.hpp"

#include <stdexcept>
#include <string>

#include "support/await.hpp"

namespace delayq::test {

namespace {

// The primary starts a replica's first sync at once, rather than after Redis's default 5 s wait
// for more replicas to share it.
RedisServerOptions without_sync_delay(RedisServerOptions options) {
    options.extra_args.insert(options.extra_args.end(), {"--repl-diskless-sync-delay", "0"});
    return options;
}

}  // namespace

ReplicatedRedis::ReplicatedRedis(RedisServerOptions options)
    : primary_(without_sync_delay(options)), replica_(options) {
    const std::string port = std::to_string(primary_.port());
    const RawReply reply = replica_.command({"REPLICAOF", "127.0.0.1", port});
    if (reply.is_error()) throw std::runtime_error("REPLICAOF refused: " + reply.str);
    await("the replica is linked to :" + port, [&]() -> std::string {
        const std::string info = replica_.command({"INFO", "replication"}).str;
        return info.find("master_link_status:up") != std::string::npos ? "" : "link not up";
    });
    // The primary counts the replica for WAIT once it has its first acknowledgement.
    await("the primary counts its replica", [&]() -> std::string {
        return primary_.integer({"WAIT", "1", "100"}) == 1 ? "" : "no acknowledgement yet";
    });
}

}  // namespace delayq::test
