// The cluster's addressing, apart from any server: hash slots, the slot map read from CLUSTER
// SHARDS and CLUSTER SLOTS replies, and redirections. Replies here are built as Redis 7.0 sends
// them; the suites against a real cluster check the same parsers on live answers.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "delayq/error.hpp"
#include "redis/key_slot.hpp"
#include "redis/redirect.hpp"
#include "redis/slot_map.hpp"
#include "reply_builders.hpp"

namespace delayq::detail {
namespace {

using replies::array;
using replies::error;
using replies::integer;
using replies::text;

// A node of a CLUSTER SHARDS reply, as Redis 7.0.15 sends it.
Reply shard_node(const std::string& role, std::int64_t port, const std::string& ip,
                 const std::string& endpoint, const std::string& hostname = "") {
    std::vector<Reply> fields{text("id"),   text("abc"), text("port"),     integer(port),
                              text("ip"),   text(ip),    text("endpoint"), text(endpoint),
                              text("role"), text(role),  text("health"),   text("online")};
    if (!hostname.empty()) {
        fields.push_back(text("hostname"));
        fields.push_back(text(hostname));
    }
    return array(std::move(fields));
}

Reply shard(std::vector<std::int64_t> ranges, std::vector<Reply> nodes) {
    std::vector<Reply> slots;
    for (const auto n : ranges) slots.push_back(integer(n));
    return array({text("slots"), array(std::move(slots)), text("nodes"), array(std::move(nodes))});
}

TEST(KeySlotTest, IsCrc16XmodemOfTheKeyModulo16384) {
    // 0x31C3 is the CRC16-XMODEM check value of "123456789".
    EXPECT_EQ(key_slot("123456789"), 0x31C3);
    // What CLUSTER KEYSLOT of Redis 7.0.15 answers.
    EXPECT_EQ(key_slot("foo"), 12182);
    EXPECT_EQ(key_slot("bar"), 5061);
    EXPECT_EQ(key_slot(""), 0);
    EXPECT_EQ(key_slot("dq:{orders}:pending"), 105);
    EXPECT_EQ(key_slot("foo{}{bar}"), 8363);
    EXPECT_EQ(key_slot("foo{{bar}}zap"), 4015);
    EXPECT_EQ(key_slot("foo{bar"), 15278);
}

TEST(KeySlotTest, HashesOnlyTheFirstNonEmptyTag) {
    EXPECT_EQ(key_slot("{user1000}.following"), key_slot("user1000"));
    EXPECT_EQ(key_slot("dq:{orders}:pending"), key_slot("orders"));
    EXPECT_EQ(key_slot("dq:{orders}:msg"), key_slot("dqs:{orders}:push"));
    EXPECT_EQ(key_slot("foo{bar}{zap}"), key_slot("bar"));
    // An empty first tag means the whole key; the first '}' after '{' closes it; an unclosed
    // tag is no tag.
    EXPECT_NE(key_slot("foo{}{bar}"), key_slot("bar"));
    EXPECT_EQ(key_slot("foo{{bar}}zap"), key_slot("{bar"));
    EXPECT_NE(key_slot("foo{bar"), key_slot("bar"));
}

TEST(SlotMapTest, ReadsTheShardsPrimaries) {
    const Reply reply = array({
        shard({0, 5460}, {shard_node("master", 7000, "10.0.0.1", "10.0.0.1"),
                          shard_node("replica", 7003, "10.0.0.4", "10.0.0.4")}),
        shard({5461, 10922}, {shard_node("replica", 7004, "10.0.0.5", "10.0.0.5"),
                              shard_node("master", 7001, "10.0.0.2", "10.0.0.2")}),
        shard({10923, 12000, 12002, 16383}, {shard_node("master", 7002, "10.0.0.3", "10.0.0.3")}),
    });
    const SlotMap map = SlotMap::from_shards(reply, false, "seed");
    ASSERT_EQ(map.primaries().size(), 3U);
    EXPECT_EQ(map.primary(0)->describe(), "10.0.0.1:7000");
    EXPECT_EQ(map.primary(5460)->describe(), "10.0.0.1:7000");
    EXPECT_EQ(map.primary(5461)->describe(), "10.0.0.2:7001");
    EXPECT_EQ(map.primary(16383)->describe(), "10.0.0.3:7002");
    // A slot no shard serves (one in the middle of a migration gone wrong) has no primary.
    EXPECT_EQ(map.primary(12001), nullptr);
    EXPECT_EQ(map.covered(), kClusterSlots - 1);
    EXPECT_EQ(map.primary(-1), nullptr);
    EXPECT_EQ(map.primary(kClusterSlots), nullptr);
}

TEST(SlotMapTest, PrefersTheAnnouncedEndpointAndNamesTheHostnameForTls) {
    const Reply reply = array({
        shard({0, 16383},
              {shard_node("master", 7000, "10.0.0.1", "redis-0.example", "redis-0.example")}),
    });
    const SlotMap map = SlotMap::from_shards(reply, false, "seed");
    EXPECT_EQ(map.primary(1)->host, "redis-0.example");
    EXPECT_EQ(map.primary(1)->tls_name, "redis-0.example");
    // "?" is Redis's unknown endpoint: the IP then, and without one the host that answered.
    const SlotMap by_ip = SlotMap::from_shards(
        array({shard({0, 16383}, {shard_node("master", 7000, "10.0.0.1", "?")})}), false, "seed");
    EXPECT_EQ(by_ip.primary(1)->host, "10.0.0.1");
    EXPECT_EQ(by_ip.primary(1)->tls_name, "10.0.0.1");
    const SlotMap asked = SlotMap::from_shards(
        array({shard({0, 16383}, {shard_node("master", 7000, "", "?")})}), false, "seed");
    EXPECT_EQ(asked.primary(1)->host, "seed");
}

TEST(SlotMapTest, TakesTheTlsPortOverTls) {
    Reply node = shard_node("master", 7000, "10.0.0.1", "10.0.0.1");
    node.elements.push_back(text("tls-port"));
    node.elements.push_back(integer(8000));
    const Reply reply = array({shard({0, 16383}, {node})});
    EXPECT_EQ(SlotMap::from_shards(reply, true, "seed").primary(0)->port, 8000);
    EXPECT_EQ(SlotMap::from_shards(reply, false, "seed").primary(0)->port, 7000);
}

TEST(SlotMapTest, SkipsShardsWithoutSlotsAndRefusesMalformedReplies) {
    const Reply empty_shard = array({shard({}, {shard_node("master", 7009, "10.0.0.9", "")}),
                                     shard({0, 16383}, {shard_node("master", 7000, "h", "h")})});
    EXPECT_EQ(SlotMap::from_shards(empty_shard, false, "seed").primaries().size(), 1U);
    // Out of range, reversed, odd, no primary, not an array.
    EXPECT_THROW(SlotMap::from_shards(
                     array({shard({0, 16384}, {shard_node("master", 1, "h", "h")})}), false, "s"),
                 ServerError);
    EXPECT_THROW(SlotMap::from_shards(array({shard({9, 3}, {shard_node("master", 1, "h", "h")})}),
                                      false, "s"),
                 ServerError);
    EXPECT_THROW(
        SlotMap::from_shards(array({shard({0}, {shard_node("master", 1, "h", "h")})}), false, "s"),
        ServerError);
    EXPECT_THROW(SlotMap::from_shards(array({shard({0, 5}, {shard_node("replica", 1, "h", "h")})}),
                                      false, "s"),
                 ServerError);
    EXPECT_THROW(SlotMap::from_shards(text("nope"), false, "s"), ServerError);
}

TEST(SlotMapTest, ReadsClusterSlots) {
    // start, end, primary (ip, port, id), replicas.
    const Reply reply = array({
        array({integer(0), integer(8191), array({text("10.0.0.1"), integer(7000), text("id1")}),
               array({text("10.0.0.3"), integer(7002), text("id3")})}),
        array({integer(8192), integer(16383), array({text(""), integer(7001), text("id2")})}),
    });
    const SlotMap map = SlotMap::from_slots(reply, "seed");
    EXPECT_EQ(map.primary(8191)->describe(), "10.0.0.1:7000");
    // An empty address: the node that answered.
    EXPECT_EQ(map.primary(8192)->describe(), "seed:7001");
    EXPECT_EQ(map.covered(), kClusterSlots);
}

TEST(RedirectTest, ReadsMovedAndAsk) {
    const auto moved = parse_redirect(error("MOVED 3999 127.0.0.1:6381"));
    ASSERT_TRUE(moved.has_value());
    EXPECT_EQ(moved->kind, Redirect::Kind::kMoved);
    EXPECT_EQ(moved->slot, 3999);
    EXPECT_EQ(moved->host, "127.0.0.1");
    EXPECT_EQ(moved->port, 6381);
    const auto ask = parse_redirect(error("ASK 0 ::1:7000"));
    ASSERT_TRUE(ask.has_value());
    EXPECT_EQ(ask->kind, Redirect::Kind::kAsk);
    EXPECT_EQ(ask->host, "::1");
    EXPECT_EQ(ask->port, 7000);
    // No host: the node that answered.
    const auto same = parse_redirect(error("MOVED 16383 :7002"));
    ASSERT_TRUE(same.has_value());
    EXPECT_EQ(same->host, "");
    EXPECT_EQ(same->slot, 16383);
}

TEST(RedirectTest, IgnoresEverythingElse) {
    EXPECT_FALSE(parse_redirect(error("ERR MOVED 1 h:1")).has_value());
    EXPECT_FALSE(parse_redirect(text("MOVED 1 h:1")).has_value());
    EXPECT_FALSE(parse_redirect(error("MOVED 16384 h:1")).has_value());
    EXPECT_FALSE(parse_redirect(error("MOVED 1 h:0")).has_value());
    EXPECT_FALSE(parse_redirect(error("MOVED 1 h")).has_value());
    EXPECT_FALSE(parse_redirect(error("ASK x h:1")).has_value());
}

TEST(RedirectTest, KnowsTheRefusalsThatPass) {
    EXPECT_TRUE(
        is_transient_refusal(error("TRYAGAIN Multiple keys request during rehashing of slot")));
    EXPECT_TRUE(is_transient_refusal(error("CLUSTERDOWN The cluster is down")));
    EXPECT_TRUE(is_transient_refusal(error("LOADING Redis is loading the dataset in memory")));
    EXPECT_TRUE(is_transient_refusal(error("MASTERDOWN Link with MASTER is down")));
    EXPECT_FALSE(is_transient_refusal(error("ERR unknown command")));
    EXPECT_FALSE(is_transient_refusal(text("TRYAGAIN")));
}

}  // namespace
}  // namespace delayq::detail
