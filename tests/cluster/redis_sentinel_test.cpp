// RedisSentinelSet: what its sentinels report, and failovers asked for or caused by a kill. Each
// test has a set of its own, as each but the first changes which server is the primary.
#include "support/redis_sentinel.hpp"

#include <gtest/gtest.h>

#include <string>

namespace delayq::test {
namespace {

std::string role_of(const RedisServer& server) {
    return server.command({"ROLE"}).elements.at(0).str;
}

std::string port_of(const RedisServer& server) { return std::to_string(server.port()); }

class RedisSentinelTest : public ::testing::Test {
  protected:
    // Written on the primary and, once WAIT says so, on the replica too.
    void write_everywhere(const std::string& key) {
        ASSERT_EQ(set_.primary().command({"SET", key, "v"}).str, "OK");
        ASSERT_EQ(set_.primary().integer({"WAIT", "1", "0"}), 1);
    }

    RedisSentinelSet set_;
};

TEST_F(RedisSentinelTest, ReportsTheFirstServerAsThePrimary) {
    EXPECT_EQ(set_.url(), "redis+sentinel://127.0.0.1:" + port_of(set_.sentinel(0)) +
                              ",127.0.0.1:" + port_of(set_.sentinel(1)) +
                              ",127.0.0.1:" + port_of(set_.sentinel(2)) + "/" + set_.master_name());
    EXPECT_EQ(set_.current_primary_port(), set_.server(0).port());
    EXPECT_EQ(&set_.primary(), &set_.server(0));
    EXPECT_EQ(&set_.replica(), &set_.server(1));
    EXPECT_EQ(role_of(set_.server(0)), "master");
    EXPECT_EQ(role_of(set_.server(1)), "slave");
    write_everywhere("k");
    EXPECT_EQ(set_.server(1).command({"GET", "k"}).str, "v");
}

TEST_F(RedisSentinelTest, FailoverSwitchesThePrimaryAndBackAgain) {
    write_everywhere("k");
    set_.failover();
    EXPECT_EQ(set_.current_primary_port(), set_.server(1).port());
    EXPECT_EQ(role_of(set_.server(1)), "master");
    EXPECT_EQ(role_of(set_.server(0)), "slave");
    EXPECT_EQ(set_.server(1).command({"GET", "k"}).str, "v");
    EXPECT_TRUE(set_.server(0).command({"SET", "k", "w"}).str.starts_with("READONLY"));

    // The former primary is a replica at once, so the set can fail over again.
    set_.failover();
    EXPECT_EQ(set_.current_primary_port(), set_.server(0).port());
    EXPECT_EQ(role_of(set_.server(1)), "slave");
}

TEST_F(RedisSentinelTest, AKilledPrimarysReplicaTakesOverAndItRejoinsAsAReplica) {
    write_everywhere("k");
    set_.server(0).kill();
    set_.wait_for_primary(set_.server(1));
    EXPECT_EQ(set_.current_primary_port(), set_.server(1).port());
    EXPECT_EQ(set_.server(1).command({"GET", "k"}).str, "v");

    set_.restart(set_.server(0));
    EXPECT_EQ(role_of(set_.server(0)), "slave");
    EXPECT_EQ(set_.current_primary_port(), set_.server(1).port());
}

}  // namespace
}  // namespace delayq::test
