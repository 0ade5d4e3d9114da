// The command line against a Redis Cluster: the same commands, given the cluster's seeds in
// DELAYQ_REDIS_URL, on queues whose slots sit on different primaries; and through Sentinel.
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "support/redis_cluster.hpp"
#include "support/redis_sentinel.hpp"

namespace delayq::test {
namespace {

using CliClusterTest = CliTest;

TEST_F(CliClusterTest, CommandsRunAgainstTheSeedsOfACluster) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    const CliOptions on_cluster{.env = {"DELAYQ_REDIS_URL=" + cluster.seeds_url()}};
    const std::vector<std::string> names = {cluster.name_served_by(0, "cli"),
                                            cluster.name_served_by(2, "cli")};
    for (const std::string& name : names) {
        const CliResult sent = cli({"send", name, "hello-" + name}, on_cluster);
        EXPECT_EQ(sent.exit_code, 0) << sent.err;
    }
    // `delayq queues` scans every primary.
    const CliResult listed = cli({"queues"}, on_cluster);
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    for (const std::string& name : names) {
        EXPECT_NE(listed.out.find(name), std::string::npos) << listed.out;
        const CliResult got = cli({"consume", name, "--max", "1", "--timeout", "60s"}, on_cluster);
        EXPECT_EQ(got.exit_code, 0) << got.err;
        EXPECT_NE(got.out.find("hello-" + name), std::string::npos) << got.out;
    }
    // Nothing of it went to the test's own standalone server.
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(CliClusterTest, CommandsRunThroughTheSentinels) {
    RedisSentinelSet set;
    const CliOptions through{.env = {"DELAYQ_REDIS_URL=" + set.url()},
                             .unset = {"DELAYQ_REDIS_SENTINEL_PASSWORD"}};
    const CliResult sent = cli({"send", "sentinel-cli", "hello"}, through);
    EXPECT_EQ(sent.exit_code, 0) << sent.err;
    const CliResult got =
        cli({"consume", "sentinel-cli", "--max", "1", "--timeout", "60s"}, through);
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_NE(got.out.find("hello"), std::string::npos) << got.out;
    EXPECT_EQ(set.server(0).integer({"EXISTS", "dq:{sentinel-cli}:stats"}), 1);

    // The sentinels' password goes to the sentinels (these have none, so they refuse it).
    const auto file = scratch_ / "sentinel.pass";
    std::ofstream(file) << "sentinel-pw\n";
    const CliResult refused = cli(
        {"--redis-sentinel-password-file", file.string(), "send", "sentinel-cli", "x"}, through);
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("AUTH"), std::string::npos) << refused.err;
    // With the sentinels' ACL user and its password, it is taken.
    for (std::size_t i = 0; i < RedisSentinelSet::kSentinels; ++i) {
        set.sentinel(i).command({"ACL", "SETUSER", "dq-sentinel", "on", ">sentinel-pw", "-@all",
                                 "+ping", "+sentinel|get-master-addr-by-name", "+subscribe",
                                 "&+switch-master"});
    }
    const CliResult as_user =
        cli({"--redis-sentinel-user", "dq-sentinel", "--redis-sentinel-password-file",
             file.string(), "send", "sentinel-cli", "as-user"},
            through);
    EXPECT_EQ(as_user.exit_code, 0) << as_user.err;
    // And with a URL that has no sentinels it is refused before anything is sent.
    const CliResult plain =
        cli({"--redis-sentinel-password-file", file.string(), "send", "sentinel-cli", "x"},
            {.env = {"DELAYQ_REDIS_URL=" + redis_.url()}});
    EXPECT_NE(plain.exit_code, 0);
    EXPECT_NE(plain.err.find("redis+sentinel://"), std::string::npos) << plain.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
