// A far-future run of at least 16 generated-id messages keeps its records in blocks, one hash
// field per block (docs/design.md, Keys). Every operation must find such a message, and a block
// must go with the last of its messages.
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

class ColdBlockTest : public RedisTest {
  protected:
    long long hlen(const std::string& part) { return server().hlen(queue_key("q", part)); }
    long long zcard(const std::string& part) { return server().zcard(queue_key("q", part)); }

    // n messages due in 3 hours, with payloads of varied lengths (empty, fixstr, str8, str16).
    std::vector<Message> far_batch(std::size_t n) {
        std::vector<Message> batch;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t len = (i * 37) % 300;
            batch.push_back({std::string(len, static_cast<char>('a' + i % 26)), {.delay = 3h}});
        }
        return batch;
    }
};

TEST_F(ColdBlockTest, AFarRunIsOneBlockAndEachMessageIsFoundInIt) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(40);
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(sent.size(), batch.size());
    EXPECT_EQ(hlen("blocks"), 2);  // the block and its counter
    EXPECT_EQ(zcard("blockidx"), 1);
    EXPECT_EQ(hlen("cold"), 0);
    EXPECT_EQ(hlen("msg"), 0);
    for (std::size_t i = 0; i < sent.size(); ++i) {
        const auto info = admin(q).get(sent[i].id);
        ASSERT_TRUE(info) << i;
        EXPECT_EQ(info->state, State::kScheduled);
        EXPECT_EQ(info->payload, batch[i].payload) << i;
    }
    const auto page = admin(q).list(State::kScheduled, {}).messages;
    ASSERT_EQ(page.size(), batch.size());
    for (std::size_t i = 0; i < page.size(); ++i) EXPECT_EQ(page[i].payload, batch[i].payload);
}

TEST_F(ColdBlockTest, DeliveredAndCancelledMessagesLeaveTheBlockWhichGoesWithTheLast) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(20);
    const std::vector<SendResult> sent = q.send_batch(batch);
    EXPECT_EQ(q.cancel(sent[3].id), CancelResult::kCancelled);
    EXPECT_EQ(q.cancel(sent[3].id), CancelResult::kNotFound);
    EXPECT_FALSE(admin(q).get(sent[3].id));  // its bytes are still in the block, but it is gone

    ASSERT_EQ(q.reschedule(sent[7].id, 0ms).status, RescheduleStatus::kRescheduled);
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), sent[7].id);
    EXPECT_EQ(d.payload(), batch[7].payload);
    EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(hlen("msg"), 1);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin(q).get(sent[7].id));

    for (std::size_t i = 0; i < sent.size(); ++i) {
        if (i == 3 || i == 7) continue;
        ASSERT_EQ(q.reschedule(sent[i].id, 0ms).status, RescheduleStatus::kRescheduled) << i;
    }
    std::vector<Delivery> got;
    while (got.size() < sent.size() - 2) {
        FetchResult f = leases(q).fetch(5, 30s);  // several fetches, each reading the block
        ASSERT_FALSE(f.deliveries.empty());
        for (auto& x : f.deliveries) got.push_back(std::move(x));
    }
    for (const Delivery& x : got) {
        std::size_t i = 0;
        while (sent[i].id != x.id()) ++i;
        EXPECT_EQ(x.payload(), batch[i].payload) << i;
        EXPECT_EQ(leases(q).ack(lease_of(x)).status, LeaseStatus::kAcked);
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(ColdBlockTest, ShortRunsNearRunsAndCallerIdsKeepARecordEach) {
    Queue q = queue();
    q.send_batch(far_batch(15));
    EXPECT_EQ(hlen("cold"), 15);
    Queue sixteen = queue("sixteen");
    sixteen.send_batch(far_batch(16));
    EXPECT_EQ(server().zcard(queue_key("sixteen", "blockidx")), 1);
    std::vector<Message> near(20, Message{"n", {.delay = 10min}});
    q.send_batch(near);
    EXPECT_EQ(hlen("msg"), 20);
    std::vector<Message> named = far_batch(20);
    for (std::size_t i = 0; i < named.size(); ++i)
        named[i].options.id = "order-" + std::to_string(i);
    q.send_batch(named);
    EXPECT_EQ(hlen("cold"), 35);
    EXPECT_EQ(hlen("blocks"), 0);
    EXPECT_EQ(admin(q).get("order-19")->payload, named[19].payload);
}

// Blocks hold consecutive sequence numbers with gaps between them (here the near batch's): an id
// must be looked up in its own block, and one in a gap in none.
TEST_F(ColdBlockTest, IdsBetweenAndAcrossBlocksFindTheirOwnRecord) {
    Queue q = queue();
    const std::vector<Message> a = far_batch(20);
    const std::vector<SendResult> sent_a = q.send_batch(a);
    const std::vector<SendResult> near = send_many(q, 5, "near");
    std::vector<Message> b = far_batch(30);
    for (Message& m : b) m.payload += "b";
    const std::vector<SendResult> sent_b = q.send_batch(b);
    EXPECT_EQ(zcard("blockidx"), 2);

    ASSERT_EQ(q.cancel(near[2].id), CancelResult::kCancelled);
    EXPECT_FALSE(admin(q).get(near[2].id));  // a generated id between two blocks
    EXPECT_EQ(admin(q).get(near[3].id)->payload, "near");
    EXPECT_EQ(admin(q).get(sent_a.back().id)->payload, a.back().payload);
    EXPECT_EQ(admin(q).get(sent_b.front().id)->payload, b.front().payload);
    EXPECT_EQ(admin(q).get(sent_b.back().id)->payload, b.back().payload);
    EXPECT_FALSE(admin(q).get("ffffffffffffff"));  // after every block

    // One fetch over both blocks and the near messages.
    for (const auto& s : sent_a) q.reschedule(s.id, 0ms);
    for (const auto& s : sent_b) q.reschedule(s.id, 0ms);
    const FetchResult f = fetch_some(q, 100, 30s);
    ASSERT_EQ(f.deliveries.size(), sent_a.size() + sent_b.size() + near.size() - 1);
    std::size_t from_blocks = 0;
    for (const Delivery& d : f.deliveries) {
        for (std::size_t i = 0; i < sent_a.size(); ++i) {
            if (sent_a[i].id == d.id()) from_blocks += d.payload() == a[i].payload ? 1 : 0;
        }
        for (std::size_t i = 0; i < sent_b.size(); ++i) {
            if (sent_b[i].id == d.id()) from_blocks += d.payload() == b[i].payload ? 1 : 0;
        }
    }
    EXPECT_EQ(from_blocks, sent_a.size() + sent_b.size());
    EXPECT_EQ(hlen("blocks"), 0);
    EXPECT_EQ(zcard("blockidx"), 0);
}

// Once delivered, a message's record lives in msg: retries, dead-lettering and requeue never
// read its stale copy in the block, which stays for the block's other messages.
TEST_F(ColdBlockTest, RetriedDeadAndRequeuedMessagesUseTheirOwnRecord) {
    Queue q = queue();
    std::vector<Message> batch = far_batch(20);
    for (Message& m : batch) m.options.max_attempts = 2;
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(q.reschedule(sent[5].id, 0ms).status, RescheduleStatus::kRescheduled);
    const Delivery first = fetch_one(q);
    ASSERT_EQ(leases(q).nack(lease_of(first), {.delay = 0ms, .error = "boom"}).status,
              LeaseStatus::kRetrying);
    const Delivery second = fetch_one(q);
    EXPECT_EQ(second.id(), sent[5].id);
    EXPECT_EQ(second.attempt(), 2);
    EXPECT_EQ(second.payload(), batch[5].payload);
    const LeaseResult dead = leases(q).nack(lease_of(second), {.delay = 0ms, .error = "boom"});
    ASSERT_EQ(dead.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(admin(q).get(sent[5].id)->state, State::kDead);
    EXPECT_EQ(hlen("blocks"), 2);  // 19 messages still pending in it

    const std::vector<std::string> ids = {sent[5].id};
    ASSERT_EQ(admin(q).requeue({.ids = ids}), 1u);
    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.id(), sent[5].id);
    EXPECT_EQ(again.attempt(), 1);
    EXPECT_EQ(again.payload(), batch[5].payload);
    EXPECT_EQ(leases(q).ack(lease_of(again)).status, LeaseStatus::kAcked);
    EXPECT_EQ(admin(q).get(sent[6].id)->payload, batch[6].payload);
}

// A block whose messages have mostly left (cancelled here) is dissolved: the few still pending
// move to cold, one record each, so that they do not keep the whole block's bytes.
TEST_F(ColdBlockTest, ABlockMostlyLeftMovesItsLastMessagesToColdAndGoes) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(64);
    const std::vector<SendResult> sent = q.send_batch(batch);
    std::size_t cancelled = 0;
    for (std::size_t i = 0; i < sent.size(); ++i) {
        if (i == 5 || i == 40 || i == 63) continue;
        ASSERT_EQ(q.cancel(sent[i].id), CancelResult::kCancelled) << i;
        ++cancelled;
        // 64 / 16: the block goes when 4 are left pending, and not before.
        EXPECT_EQ(hlen("blocks"), cancelled < 60 ? 2 : 0) << cancelled;
    }
    // One of the four moved to cold was cancelled since.
    EXPECT_EQ(hlen("blocks"), 0);
    EXPECT_EQ(zcard("blockidx"), 0);
    EXPECT_EQ(hlen("cold"), 3);
    ASSERT_EQ(q.reschedule(sent[5].id, 0ms).status, RescheduleStatus::kRescheduled);
    ASSERT_EQ(q.reschedule(sent[63].id, 0ms).status, RescheduleStatus::kRescheduled);
    const FetchResult f = fetch_some(q, 10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    EXPECT_EQ(f.deliveries[0].payload(), batch[5].payload);
    EXPECT_EQ(f.deliveries[1].payload(), batch[63].payload);
    EXPECT_EQ(admin(q).get(sent[40].id)->payload, batch[40].payload);
    EXPECT_EQ(admin(q).get(sent[40].id)->state, State::kScheduled);
    for (const Delivery& d : f.deliveries)
        EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_EQ(q.cancel(sent[40].id), CancelResult::kCancelled);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

// The same when deliveries take most of a block, a few at a time.
TEST_F(ColdBlockTest, ABlockMostlyDeliveredIsDissolvedAndTheRestDeliveredFromCold) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(32);
    const std::vector<SendResult> sent = q.send_batch(batch);
    for (const auto& s : sent) q.reschedule(s.id, 0ms);
    std::vector<Delivery> got;
    bool dissolved_before_the_end = false;
    while (got.size() < sent.size()) {
        FetchResult f = fetch_some(q, 5, 30s);
        ASSERT_FALSE(f.deliveries.empty());
        for (auto& x : f.deliveries) got.push_back(std::move(x));
        if (got.size() < sent.size() && hlen("blocks") == 0) {
            dissolved_before_the_end = true;
            EXPECT_EQ(hlen("cold"), static_cast<long long>(sent.size() - got.size()));
        }
    }
    EXPECT_TRUE(dissolved_before_the_end);
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].id(), sent[i].id);
        EXPECT_EQ(got[i].payload(), batch[i].payload) << i;
        EXPECT_EQ(leases(q).ack(lease_of(got[i])).status, LeaseStatus::kAcked);
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

// After a data loss that drops a block, its pending messages cannot be delivered: each is
// counted, not hidden, and nothing else breaks.
TEST_F(ColdBlockTest, PendingMessagesWhoseBlockIsLostAreCountedAsOrphans) {
    Queue q = queue();
    const std::vector<SendResult> sent = q.send_batch(far_batch(20));
    for (const auto& s : sent) q.reschedule(s.id, 0ms);
    ASSERT_EQ(server().integer({"DEL", queue_key("q", "blocks")}), 1);
    EXPECT_FALSE(admin(q).get(sent[0].id));
    const FetchResult f = leases(q).fetch(100, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    EXPECT_EQ(admin(q).stats().totals.orphans_removed, sent.size());
}

TEST_F(ColdBlockTest, LargeRecordsSplitBlocksAndTheLargestStandAlone) {
    Queue q = queue();
    std::vector<Message> batch;
    for (int i = 0; i < 200; ++i) {
        batch.push_back({std::string(1000, 'x') + std::to_string(i), {.delay = 3h}});
    }
    batch.push_back({std::string(70000, 'y'), {.delay = 3h}});
    for (int i = 0; i < 20; ++i) batch.push_back({"z" + std::to_string(i), {.delay = 3h}});
    const std::vector<SendResult> sent = q.send_batch(batch);
    // 200 records of ~1 KB: 3 blocks of 65 and 5 left over, too few for a block, in cold with
    // the largest; then the 20 short ones, a block.
    EXPECT_EQ(hlen("cold"), 6);
    EXPECT_EQ(zcard("blockidx"), 4);
    for (std::size_t i = 0; i < sent.size(); ++i) {
        const auto info = admin(q).get(sent[i].id);
        ASSERT_TRUE(info) << i;
        EXPECT_EQ(info->payload, batch[i].payload) << i;
        EXPECT_EQ(q.cancel(sent[i].id), CancelResult::kCancelled) << i;
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

// A record is the max_attempts byte (25), a str16 header of 3 bytes, then the payload
// (docs/design.md, Record): 16 records of 65,535 bytes in all are one block; one byte more and
// they cannot make one, so none of them is in a block.
TEST_F(ColdBlockTest, BlocksHoldAtMost65535BytesAndAtLeast16Records) {
    Queue q = queue();
    std::vector<Message> batch(16, Message{std::string(4000, 'p'), {.delay = 3h}});
    batch.back().payload = std::string(65535 - 15 * 4004 - 4, 'q');
    q.send_batch(batch);
    EXPECT_EQ(zcard("blockidx"), 1);
    EXPECT_EQ(hlen("cold"), 0);

    Queue r = queue("r");
    batch.back().payload += 'q';
    r.send_batch(batch);
    EXPECT_EQ(server().zcard(queue_key("r", "blockidx")), 0);
    EXPECT_EQ(server().hlen(queue_key("r", "cold")), 16);
}

// A block whose bytes exceed 4 KiB per pending message is dissolved too: 16 records of 4 KB
// go to cold at the first that leaves, rather than keep 4 KB each for it.
TEST_F(ColdBlockTest, ABlockOfLargeRecordsIsDissolvedAtTheFirstDeparture) {
    Queue q = queue();
    const std::vector<Message> batch(16, Message{std::string(4000, 'p'), {.delay = 3h}});
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(zcard("blockidx"), 1);
    ASSERT_EQ(q.cancel(sent[0].id), CancelResult::kCancelled);
    EXPECT_EQ(zcard("blockidx"), 0);
    EXPECT_EQ(hlen("cold"), 15);
    EXPECT_EQ(admin(q).get(sent[15].id)->payload, batch[15].payload);
}

// A message that left its block (delivered, then nacked) and is pending again has its own
// record in msg: dissolving the block must not copy the block's stale one to cold, which would
// outlive the ack and make the message look dead.
TEST_F(ColdBlockTest, DissolvingSkipsAMessagePendingAgainWithItsOwnRecord) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(16);
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(q.reschedule(sent[0].id, 0ms).status, RescheduleStatus::kRescheduled);
    const Delivery first = fetch_one(q);
    ASSERT_EQ(leases(q).nack(lease_of(first), {.delay = 1h, .error = "later"}).status,
              LeaseStatus::kRetrying);
    for (std::size_t i = 1; i < 15; ++i) ASSERT_EQ(q.cancel(sent[i].id), CancelResult::kCancelled);
    EXPECT_EQ(zcard("blockidx"), 0);  // dissolved: 1 of 16 left in it
    EXPECT_EQ(hlen("cold"), 1);       // sent[15] only

    ASSERT_EQ(q.reschedule(sent[0].id, 0ms).status, RescheduleStatus::kRescheduled);
    const Delivery second = fetch_one(q);
    EXPECT_EQ(second.id(), sent[0].id);
    EXPECT_EQ(second.attempt(), 2);
    EXPECT_EQ(leases(q).ack(lease_of(second)).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin(q).get(sent[0].id));
    EXPECT_EQ(q.cancel(sent[0].id), CancelResult::kNotFound);
    EXPECT_EQ(q.cancel(sent[15].id), CancelResult::kCancelled);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

}  // namespace
}  // namespace delayq::test
