// delayq send --wait-replicas N --wait-timeout DUR: confirmed by a real replica (exit 0), or not
// (exit 1, naming the counts and the ids, the messages stored all the same). The bad inputs are
// in usage_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_fixture.hpp"
#include "support/replicated_redis.hpp"

namespace delayq::test {
namespace {

using DurableSendCliTest = CliTest;

TEST_F(DurableSendCliTest, AReplicaConfirmsTheSendAndItIsThereAtOnce) {
    ReplicatedRedis pair;
    CliOptions on_pair;
    on_pair.env = {"DELAYQ_REDIS_URL=" + pair.primary().url()};
    const CliResult r = cli(
        {"send", "q", "x", "--id", "a", "--wait-replicas", "1", "--wait-timeout", "10s"}, on_pair);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "a\n");
    EXPECT_EQ(pair.replica().integer({"HEXISTS", queue_key("q", "msg"), "a"}), 1);

    on_pair.input = "{\"payload\": \"1\", \"id\": \"b\"}\n{\"payload\": \"2\"}\n";
    const CliResult file =
        cli({"send", "q", "--file", "-", "--wait-replicas", "1", "--wait-timeout", "10s"}, on_pair);
    ASSERT_EQ(file.exit_code, 0) << file.err;
    EXPECT_EQ(pair.replica().hlen(queue_key("q", "msg")), 3);
}

TEST_F(DurableSendCliTest, TooFewReplicasExitsOneWithTheIdsAndTheMessageIsStored) {
    // redis_ has no replica: WAIT 1 confirms none.
    const CliResult r = cli({"send", "q", "x", "--wait-replicas", "1", "--wait-timeout", "200ms"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("0 of 1 replicas"), std::string::npos) << r.err;
    const auto ids_at = r.err.find("ids: ");
    ASSERT_NE(ids_at, std::string::npos) << r.err;
    std::string id = r.err.substr(ids_at + 5);
    id = id.substr(0, id.find('\n'));
    ASSERT_FALSE(id.empty());
    EXPECT_EQ(peek("q", "ready").at(0)["id"], id);

    // Sent again with its id, it is a duplicate (and still unconfirmed).
    const CliResult again =
        cli({"send", "q", "x", "--id", id, "--wait-replicas", "1", "--wait-timeout", "200ms"});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("ids: " + id), std::string::npos) << again.err;
    EXPECT_EQ(peek("q", "ready").size(), 1U);
}

TEST_F(DurableSendCliTest, AFileStopsAtTheFirstUnconfirmedBatchNamingItsLinesAndIds) {
    CliOptions o;
    o.input = "{\"payload\": \"1\", \"id\": \"one\"}\n{\"payload\": \"2\", \"id\": \"two\"}\n";
    const CliResult r =
        cli({"send", "q", "--file", "-", "--wait-replicas", "1", "--wait-timeout", "200ms"}, o);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("lines 1-2 not replicated"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ids: one two"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace delayq::test
