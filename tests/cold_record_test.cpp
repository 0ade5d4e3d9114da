// Messages sent due more than an hour ahead keep their record in the queue's cold hash until their
// first delivery (docs/design.md, Keys). Every operation must find such a message and leave no
// record behind in either hash.
#include <algorithm>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

class ColdRecordTest : public RedisTest {
  protected:
    long long hlen(const std::string& part) { return server().hlen(queue_key("q", part)); }
};

TEST_F(ColdRecordTest, FarRecordsAreColdUntilTheirFirstDelivery) {
    Queue q = queue();
    const SendResult far = q.send("far", {.delay = 2h});
    const SendResult near = q.send("near", {.delay = 30min});
    EXPECT_EQ(hlen("cold"), 1);
    EXPECT_EQ(hlen("msg"), 1);
    const auto info = admin(q).get(far.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kScheduled);
    EXPECT_EQ(info->payload, "far");
    EXPECT_EQ(ms(info->due), ms(far.due));

    ASSERT_EQ(q.reschedule(far.id, 0ms).status, RescheduleStatus::kRescheduled);
    EXPECT_EQ(hlen("cold"), 1);  // a reschedule leaves the record where it is
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), far.id);
    EXPECT_EQ(d.payload(), "far");
    EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(hlen("cold"), 0);
    EXPECT_EQ(hlen("msg"), 2);
    EXPECT_EQ(admin(q).get(far.id)->state, State::kInFlight);

    // Its later life is the ordinary one: a retry stays in msg.
    ASSERT_EQ(leases(q).nack(lease_of(d), Nack{.delay = 0ms, .error = "again"}).status,
              LeaseStatus::kRetrying);
    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.id(), far.id);
    EXPECT_EQ(again.attempt(), 2);
    EXPECT_EQ(leases(q).ack(lease_of(again)).status, LeaseStatus::kAcked);
    EXPECT_EQ(q.cancel(near.id), CancelResult::kCancelled);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(ColdRecordTest, ABatchSplitsItsRecordsByDueTime) {
    Queue q = queue();
    std::vector<Message> batch = {{"n1", {.delay = 10min}},
                                  {"f1", {.delay = 3h}},
                                  {"f2", {.delay = 3h, .id = "caller"}},
                                  {"f3", {.delay = 3h, .expire_after = 4h}},
                                  {"n2", {.delay = 10min, .id = "near-caller"}}};
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(sent.size(), batch.size());
    EXPECT_EQ(hlen("cold"), 3);
    EXPECT_EQ(hlen("msg"), 2);
    const auto page = admin(q).list(State::kScheduled, {}).messages;
    ASSERT_EQ(page.size(), batch.size());
    for (const MessageInfo& m : page) {
        const auto it = std::find_if(sent.begin(), sent.end(),
                                     [&](const SendResult& r) { return r.id == m.id; });
        ASSERT_NE(it, sent.end()) << m.id;
        EXPECT_EQ(m.payload, batch[static_cast<std::size_t>(it - sent.begin())].payload);
    }
    // Duplicates are found in either hash, with the due time of the message that holds the id.
    const SendResult dup = q.send("other", {.delay = 1min, .id = "caller"});
    EXPECT_TRUE(dup.duplicate);
    EXPECT_EQ(ms(dup.due), ms(sent[2].due));
    EXPECT_TRUE(q.send("other", {.delay = 5h, .id = "near-caller"}).duplicate);
    EXPECT_EQ(admin(q).stats().totals.sent, batch.size());

    for (const SendResult& s : sent) EXPECT_EQ(q.cancel(s.id), CancelResult::kCancelled) << s.id;
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

// An expired message met by fetch is dead-lettered; one whose record is cold gets its dead
// record in msg, like every dead letter, and none left in cold.
TEST_F(ColdRecordTest, AColdMessagePastItsExpiryIsDeadLetteredIntoMsg) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 2h, .expire_after = 3h});
    ASSERT_EQ(hlen("cold"), 1);
    // Set its expiry in the past, as if three hours had gone by: the record's third value, after
    // the due time's 9 bytes.
    const RawReply r = server().command(
        {"EVAL",
         "local rec = redis.call('HGET', KEYS[1], ARGV[1]) "
         "local _, a, _, c, d = cmsgpack.unpack(rec) "
         "return redis.call('HSET', KEYS[1], ARGV[1], rec:sub(1, 9) .. cmsgpack.pack(a, 1, c, d))",
         "1", queue_key("q", "cold"), s.id});
    ASSERT_FALSE(r.is_error()) << r.str;
    ASSERT_EQ(q.reschedule(s.id, 0ms).status, RescheduleStatus::kRescheduled);
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].id, s.id);
    EXPECT_EQ(f.dead_lettered[0].reason, "expired");
    EXPECT_EQ(hlen("cold"), 0);
    EXPECT_EQ(hlen("msg"), 1);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->payload, "x");
    EXPECT_EQ(admin(q).requeue({.ids = std::vector<std::string>{s.id}}), 1u);
    EXPECT_EQ(fetch_one(q).payload(), "x");
}

TEST_F(ColdRecordTest, CancelOfAColdMessageLeavesNothing) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 48h, .id = "order-1"});
    EXPECT_EQ(q.cancel("order-1"), CancelResult::kCancelled);
    EXPECT_EQ(q.cancel("order-1"), CancelResult::kNotFound);
    EXPECT_FALSE(admin(q).get(s.id));
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

}  // namespace
}  // namespace delayq::test
