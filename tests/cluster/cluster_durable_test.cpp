// Durable sends on a Redis Cluster: WAIT goes to the node that stored the messages, also when
// the send met MOVED and was redirected to a pooled connection of the slot's new primary.
#include <gtest/gtest.h>

#include <string>

#include "support/fixture.hpp"
#include "support/redis_cluster.hpp"

namespace delayq::test {
namespace {

// Whether a cluster replica holds message `id` of `queue` (READONLY: a cluster replica
// redirects reads otherwise).
bool replica_holds(const RedisServer& replica, const std::string& queue, const std::string& id) {
    const auto replies =
        replica.commands({{"READONLY"}, {"HEXISTS", "dq:{" + queue + "}:msg", id}});
    return replies.at(1).integer == 1;
}

TEST(ClusterDurableTest, WaitFollowsASendRedirectedToTheSlotsNewPrimary) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 1});
    Client client(cluster.seeds_url());
    const std::string name = cluster.name_served_by(0, "durable");
    Queue q = client.queue(name, {.durability = {.replicas = 1, .timeout = 10s}});
    const SendResult before = q.send("before", {.id = "before"});
    const std::size_t replica0 = cluster.replicas_of(0).at(0);
    EXPECT_TRUE(replica_holds(cluster.node(replica0), name, before.id));

    cluster.migrate_slot(RedisCluster::slot_of(name), 1);
    ASSERT_EQ(cluster.primary_of_slot(RedisCluster::slot_of(name)), 1U);
    // Node 1's replica cannot confirm: WAIT on node 1 falls short, where a WAIT on the
    // connection to node 0 (which wrote nothing new) would have confirmed at once.
    const std::size_t replica1 = cluster.replicas_of(1).at(0);
    cluster.node(replica1).freeze();
    Queue short_wait = client.queue(name, {.durability = {.replicas = 1, .timeout = 200ms}});
    try {
        short_wait.send("after", {.id = "after"});
        ADD_FAILURE() << "confirmed without node 1's replica";
    } catch (const DurabilityError& e) {
        EXPECT_EQ(e.ids(), std::vector<std::string>{"after"});
    }
    cluster.node(replica1).thaw();
    // Sent again: a duplicate on node 1, confirmed by its replica.
    EXPECT_TRUE(q.send("after", {.id = "after"}).duplicate);
    EXPECT_TRUE(replica_holds(cluster.node(replica1), name, "after"));
}

}  // namespace
}  // namespace delayq::test
