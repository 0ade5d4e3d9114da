// RedisCluster's changes: slot migration step by step, failovers, a killed primary. Each test
// has a cluster of its own, as each changes who serves what.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/redirection.hpp"
#include "support/redis_cluster.hpp"

namespace delayq::test {
namespace {

constexpr int kSlot = 100;
constexpr bool kAsking = true;

class ClusterChangeTest : public ::testing::Test {
  protected:
    // A primary other than `p`.
    std::size_t other_primary(std::size_t p) const {
        for (const std::size_t q : cluster_.primaries()) {
            if (q != p) return q;
        }
        throw std::logic_error("one primary only");
    }
    std::string get(std::size_t node, const std::string& key) const {
        return cluster_.node(node).command({"GET", key}).str;
    }
    void set(std::size_t node, const std::string& key, const std::string& value) {
        ASSERT_EQ(cluster_.node(node).command({"SET", key, value}).str, "OK");
    }
    // A script over `keys` on `node`, as delayq runs its own (its reply is the number of keys),
    // after ASKING on the same connection when `asking`.
    RawReply script(std::size_t node, const std::vector<std::string>& keys,
                    bool asking = false) const {
        std::vector<std::string> eval = {"EVAL", "return #KEYS", std::to_string(keys.size())};
        eval.insert(eval.end(), keys.begin(), keys.end());
        if (!asking) return cluster_.node(node).command(eval);
        return cluster_.node(node).commands({{"ASKING"}, eval}).at(1);
    }

    RedisCluster cluster_;
};

TEST_F(ClusterChangeTest, MigrationAsksForMovedKeysThenTheNewOwnerServesThem) {
    const std::size_t from = cluster_.primary_of_slot(kSlot);
    const std::size_t to = other_primary(from);
    const std::string key = cluster_tag_in_slot(kSlot) + "moving";
    set(from, key, "v");

    cluster_.begin_migration(kSlot, from, to);
    EXPECT_EQ(get(from, key), "v") << "a key not moved yet is served by the source";
    cluster_.move_keys(kSlot, from, to);
    EXPECT_EQ(cluster_.node(from).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(kSlot)}),
              0);
    EXPECT_EQ(get(from, key), redirection("ASK", kSlot, cluster_.node(to)));
    // The target serves the slot only to a client that was sent: ASKING, on the same connection.
    EXPECT_EQ(get(to, key), redirection("MOVED", kSlot, cluster_.node(from)));
    const auto asked = cluster_.node(to).commands({{"ASKING"}, {"GET", key}});
    EXPECT_EQ(asked.at(1).str, "v");
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), from) << "the slot is the source's until the end";

    cluster_.end_migration(kSlot, to);
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), to);
    EXPECT_EQ(get(to, key), "v");
    for (std::size_t i = 0; i < cluster_.size(); ++i) {
        if (i == to) continue;
        EXPECT_EQ(get(i, key), redirection("MOVED", kSlot, cluster_.node(to))) << "node " << i;
    }
}

// What one of delayq's scripts, over several keys of a slot of which some may never have been
// written, meets while the slot migrates. A node serves a command over a migrating slot only
// with all its keys at hand, and cannot tell a key not moved yet from one never written: the
// source asks for TRYAGAIN while it holds some of the keys and sends the client to the target
// (ASK) once it holds none; the target, asked, serves only when it holds all. So a script with
// an absent key gets TRYAGAIN or ASK-then-TRYAGAIN until the migration ends.
TEST_F(ClusterChangeTest, AScriptWithAnAbsentKeyCannotRunUntilTheMigrationEnds) {
    const std::size_t from = cluster_.primary_of_slot(kSlot);
    const std::size_t to = other_primary(from);
    const std::string tag = cluster_tag_in_slot(kSlot);
    const std::string a = tag + "a", b = tag + "b", never = tag + "never-written";
    set(from, a, "1");
    set(from, b, "2");
    const std::string try_again = "TRYAGAIN Multiple keys request during rehashing of slot";
    const std::string ask = redirection("ASK", kSlot, cluster_.node(to));

    cluster_.begin_migration(kSlot, from, to);
    EXPECT_EQ(script(from, {a, b}).integer, 2) << "all its keys at hand";
    EXPECT_EQ(script(from, {a, never}).str, try_again);
    cluster_.move_key(a, from, to);
    EXPECT_EQ(script(from, {a, b}).str, try_again);
    cluster_.move_keys(kSlot, from, to);
    EXPECT_EQ(script(from, {a, b}).str, ask);
    EXPECT_EQ(script(from, {a, never}).str, ask);
    EXPECT_EQ(script(to, {a, b}, kAsking).integer, 2);
    EXPECT_EQ(script(to, {a, never}, kAsking).str, try_again);

    cluster_.end_migration(kSlot, to);
    EXPECT_EQ(script(to, {a, never}).integer, 2);
}

TEST_F(ClusterChangeTest, MigrateSlotMovesEveryKeyToTheNewOwner) {
    const std::size_t from = cluster_.primary_of_slot(kSlot);
    const std::size_t to = other_primary(from);
    const std::string tag = cluster_tag_in_slot(kSlot);
    // More keys than one MIGRATE batch takes.
    for (int i = 0; i < 250; ++i) set(from, tag + std::to_string(i), std::to_string(i));
    cluster_.migrate_slot(kSlot, to);
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), to);
    EXPECT_EQ(cluster_.node(to).integer({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(kSlot)}),
              250);
    EXPECT_EQ(get(to, tag + "249"), "249");
}

TEST_F(ClusterChangeTest, FailoverPromotesTheReplicaAndLosesNoWrite) {
    const std::size_t old_primary = cluster_.primary_of_slot(kSlot);
    const std::vector<std::size_t> replicas = cluster_.replicas_of(old_primary);
    ASSERT_EQ(replicas.size(), 1u);
    const std::size_t replica = replicas.front();
    const std::string key = cluster_tag_in_slot(kSlot) + "written-before";
    set(old_primary, key, "v");

    cluster_.failover(replica);
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), replica);
    EXPECT_EQ(cluster_.replicas_of(replica), std::vector<std::size_t>{old_primary});
    EXPECT_EQ(get(replica, key), "v");
    EXPECT_EQ(get(old_primary, key), redirection("MOVED", kSlot, cluster_.node(replica)));
}

TEST_F(ClusterChangeTest, AKilledPrimarysReplicaTakesOverAndItRejoinsAsAReplica) {
    const std::size_t old_primary = cluster_.primary_of_slot(kSlot);
    const std::size_t replica = cluster_.replicas_of(old_primary).at(0);

    cluster_.kill(old_primary);
    cluster_.wait_ok();
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), replica);
    EXPECT_EQ(cluster_.primaries().size(), 3u);

    cluster_.restart(old_primary);
    EXPECT_EQ(cluster_.replicas_of(replica), std::vector<std::size_t>{old_primary});
    EXPECT_EQ(cluster_.primary_of_slot(kSlot), replica);
}

}  // namespace
}  // namespace delayq::test
