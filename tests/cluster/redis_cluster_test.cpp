// A RedisCluster as it starts: its layout, what it answers, its URLs.
#include "support/redis_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/redirection.hpp"

namespace delayq::test {
namespace {

// One cluster for the suite: a start takes ~2.5 s (a primary says cluster_state:ok no sooner
// than 2 s after it starts), and these tests change no role and no slot, each writing keys of
// its own. ctest runs each test in a process of its own, so there every test starts one; the
// sharing pays when the executable runs whole. Tests that change the cluster are in
// cluster_change_test.cpp, each with its own.
class RedisClusterTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { cluster_ = std::make_unique<RedisCluster>(); }
    static void TearDownTestSuite() { cluster_.reset(); }
    static RedisCluster& cluster() { return *cluster_; }

  private:
    static inline std::unique_ptr<RedisCluster> cluster_;
};

// One range of CLUSTER SLOTS: its slots and the ports of the primary and replicas serving them.
struct SlotRange {
    long long first;
    long long last;
    std::vector<long long> ports;  // primary first
    bool operator==(const SlotRange&) const = default;
};

// CLUSTER SLOTS as `node` answers it: read apart from the fixture's own CLUSTER NODES parser,
// so that the two check each other.
std::vector<SlotRange> slot_ranges(const RedisServer& node) {
    const RawReply reply = node.command({"CLUSTER", "SLOTS"});
    std::vector<SlotRange> out;
    for (const RawReply& range : reply.elements) {
        SlotRange r{range.elements.at(0).integer, range.elements.at(1).integer, {}};
        for (std::size_t i = 2; i < range.elements.size(); ++i) {
            r.ports.push_back(range.elements[i].elements.at(1).integer);
        }
        out.push_back(r);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

TEST_F(RedisClusterTest, EverySlotIsServedOnceAndEachPrimaryHoldsAThird) {
    RedisCluster& c = cluster();
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c.primaries(), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(c.replicas(), (std::vector<std::size_t>{3, 4, 5}));
    const std::vector<SlotRange> ranges = slot_ranges(c.node(0));
    std::map<long long, long long> slots_of_port;
    long long next = 0;
    for (const SlotRange& r : ranges) {
        EXPECT_EQ(r.first, next) << "a gap or an overlap before slot " << r.first;
        next = r.last + 1;
        ASSERT_EQ(r.ports.size(), 2u) << "a primary and its replica";
        const std::size_t primary = c.index_of_port(static_cast<int>(r.ports[0]));
        EXPECT_LT(primary, 3u);
        EXPECT_EQ(c.index_of_port(static_cast<int>(r.ports[1])), primary + 3);
        EXPECT_EQ(c.replicas_of(primary), std::vector<std::size_t>{primary + 3});
        slots_of_port[r.ports[0]] += r.last - r.first + 1;
    }
    EXPECT_EQ(next, kClusterSlots);
    ASSERT_EQ(slots_of_port.size(), 3u);
    for (const auto& [port, slots] : slots_of_port) {
        EXPECT_GE(slots, kClusterSlots / 3) << port;
        EXPECT_LE(slots, kClusterSlots / 3 + 1) << port;
    }
    for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(slot_ranges(c.node(i)), ranges) << "node " << i << " sees another layout";
        const std::string info = c.node(i).command({"CLUSTER", "INFO"}).str;
        EXPECT_NE(info.find("cluster_state:ok"), std::string::npos) << info;
        EXPECT_NE(info.find("cluster_known_nodes:6"), std::string::npos) << info;
    }
    for (const std::size_t r : c.replicas()) {
        const std::string info = c.node(r).command({"INFO", "replication"}).str;
        EXPECT_NE(info.find("master_link_status:up"), std::string::npos) << info;
    }
}

TEST_F(RedisClusterTest, AKeyIsServedByItsSlotsPrimaryAndRedirectedByEveryOtherNode) {
    RedisCluster& c = cluster();
    for (const int slot : {7, 8000, kClusterSlots - 2}) {
        const std::size_t owner = c.primary_of_slot(slot);
        const std::string key = cluster_tag_in_slot(slot) + "redirected";
        ASSERT_EQ(RedisCluster::slot_of(key), slot);
        ASSERT_EQ(c.node(owner).command({"SET", key, "v"}).str, "OK");
        EXPECT_EQ(c.node(owner).command({"GET", key}).str, "v");
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (i == owner) continue;
            // A replica too: it serves reads only to a client that said READONLY.
            const RawReply reply = c.node(i).command({"GET", key});
            EXPECT_TRUE(reply.is_error()) << "node " << i;
            EXPECT_EQ(reply.str, redirection("MOVED", slot, c.node(owner))) << "node " << i;
        }
    }
}

TEST_F(RedisClusterTest, UrlsNameThePrimaries) {
    RedisCluster& c = cluster();
    const auto at = [&](std::size_t i) { return "127.0.0.1:" + std::to_string(c.node(i).port()); };
    EXPECT_EQ(c.url(), "redis://" + at(0));
    EXPECT_EQ(c.seeds_url(), "redis://" + at(0) + "," + at(1) + "," + at(2));
}

}  // namespace
}  // namespace delayq::test
