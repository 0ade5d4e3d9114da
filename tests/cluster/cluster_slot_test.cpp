// The slot oracle (support/cluster_slot.hpp) against the Cluster specification and a server.
#include "support/cluster_slot.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/redis_server.hpp"

namespace delayq::test {
namespace {

TEST(ClusterSlotTest, FollowsTheSpecificationsExamples) {
    // CRC16-XMODEM's check value: 0x31C3 for "123456789".
    EXPECT_EQ(cluster_slot_of("123456789"), 0x31C3);
    EXPECT_EQ(cluster_slot_of(""), 0);
    // The hash tag rules, with the specification's own keys.
    EXPECT_EQ(cluster_slot_of("{user1000}.following"), cluster_slot_of("user1000"));
    EXPECT_EQ(cluster_slot_of("{user1000}.followers"), cluster_slot_of("user1000"));
    EXPECT_EQ(cluster_slot_of("foo{{bar}}zap"), cluster_slot_of("{bar"));
    EXPECT_EQ(cluster_slot_of("foo{bar}{zap}"), cluster_slot_of("bar"));
    // An empty tag is no tag: the whole key is hashed.
    EXPECT_NE(cluster_slot_of("foo{}{bar}"), cluster_slot_of("bar"));
    EXPECT_NE(cluster_slot_of("foo{}{bar}"), cluster_slot_of(""));
}

TEST(ClusterSlotTest, TagInSlotIsInThatSlot) {
    for (const int slot : {0, 1, 5460, 5461, 12739, kClusterSlots - 1}) {
        const std::string tag = cluster_tag_in_slot(slot);
        EXPECT_EQ(cluster_slot_of(tag + "any key"), slot) << tag;
    }
    EXPECT_THROW(cluster_tag_in_slot(kClusterSlots), std::out_of_range);
}

// Keys whose slot the rules could get wrong, then bytes of every value.
std::vector<std::string> tricky_keys() {
    std::vector<std::string> keys = {"",
                                     "{",
                                     "}",
                                     "{}",
                                     "}{",
                                     "{a",
                                     "a}",
                                     "{a}",
                                     "{a}{b}",
                                     "a{}b{c}",
                                     "{{a}}",
                                     "{}{a}",
                                     "dq:{q}:msg",
                                     "dq:{orders}:pending",
                                     "{ }",
                                     "x{y}z}",
                                     std::string("\0{\0}", 4)};
    for (int b = 0; b < 256; ++b) keys.push_back("k" + std::string(1, static_cast<char>(b)));
    for (int n = 0; n < 200; ++n) keys.push_back("key:" + std::to_string(n * 7919));
    return keys;
}

TEST(ClusterSlotTest, AgreesWithClusterKeyslot) {
    // One node answers CLUSTER KEYSLOT without any slots or peers.
    const RedisServer node({.extra_args = {"--cluster-enabled", "yes"}, .reserve_bus_port = true});
    const std::vector<std::string> keys = tricky_keys();
    std::vector<std::vector<std::string>> asks;
    for (const auto& key : keys) asks.push_back({"CLUSTER", "KEYSLOT", key});
    const std::vector<RawReply> slots = node.commands(asks);
    ASSERT_EQ(slots.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(slots[i].kind, RawReply::Kind::kInteger) << slots[i].str;
        EXPECT_EQ(cluster_slot_of(keys[i]), slots[i].integer) << "key " << i << ": " << keys[i];
    }
}

}  // namespace
}  // namespace delayq::test
