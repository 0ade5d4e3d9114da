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
        const auto info = q.get(sent[i].id);
        ASSERT_TRUE(info) << i;
        EXPECT_EQ(info->state, State::kScheduled);
        EXPECT_EQ(info->payload, batch[i].payload) << i;
    }
    const auto page = q.list(State::kScheduled, {});
    ASSERT_EQ(page.size(), batch.size());
    for (std::size_t i = 0; i < page.size(); ++i) EXPECT_EQ(page[i].payload, batch[i].payload);
}

TEST_F(ColdBlockTest, DeliveredAndCancelledMessagesLeaveTheBlockWhichGoesWithTheLast) {
    Queue q = queue();
    const std::vector<Message> batch = far_batch(20);
    const std::vector<SendResult> sent = q.send_batch(batch);
    EXPECT_EQ(q.cancel(sent[3].id), CancelResult::kCancelled);
    EXPECT_EQ(q.cancel(sent[3].id), CancelResult::kNotFound);
    EXPECT_FALSE(q.get(sent[3].id));  // its bytes are still in the block, but it is gone

    ASSERT_EQ(q.reschedule(sent[7].id, 0ms).status, RescheduleStatus::kRescheduled);
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), sent[7].id);
    EXPECT_EQ(d.payload(), batch[7].payload);
    EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(hlen("msg"), 1);
    EXPECT_EQ(q.ack(d), AckResult::kAcked);
    EXPECT_FALSE(q.get(sent[7].id));

    for (std::size_t i = 0; i < sent.size(); ++i) {
        if (i == 3 || i == 7) continue;
        ASSERT_EQ(q.reschedule(sent[i].id, 0ms).status, RescheduleStatus::kRescheduled) << i;
    }
    std::vector<Delivery> got;
    while (got.size() < sent.size() - 2) {
        FetchResult f = q.fetch(5, 30s);  // several fetches, each reading the block
        ASSERT_FALSE(f.deliveries.empty());
        for (auto& x : f.deliveries) got.push_back(std::move(x));
    }
    for (const Delivery& x : got) {
        std::size_t i = 0;
        while (sent[i].id != x.id()) ++i;
        EXPECT_EQ(x.payload(), batch[i].payload) << i;
        EXPECT_EQ(q.ack(x), AckResult::kAcked);
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(ColdBlockTest, ShortRunsNearRunsAndCallerIdsKeepARecordEach) {
    Queue q = queue();
    q.send_batch(far_batch(15));
    EXPECT_EQ(hlen("cold"), 15);
    std::vector<Message> near(20, Message{"n", {.delay = 10min}});
    q.send_batch(near);
    EXPECT_EQ(hlen("msg"), 20);
    EXPECT_EQ(hlen("blocks"), 0);
}

TEST_F(ColdBlockTest, LargeRecordsSplitBlocksAndTheLargestStandAlone) {
    Queue q = queue();
    std::vector<Message> batch;
    for (int i = 0; i < 40; ++i)
        batch.push_back({std::string(5000, 'x') + std::to_string(i), {.delay = 3h}});
    batch.push_back({std::string(70000, 'y'), {.delay = 3h}});
    for (int i = 0; i < 20; ++i) batch.push_back({"z" + std::to_string(i), {.delay = 3h}});
    const std::vector<SendResult> sent = q.send_batch(batch);
    EXPECT_EQ(hlen("cold"), 1);
    EXPECT_GE(zcard("blockidx"), 4);
    for (std::size_t i = 0; i < sent.size(); ++i) {
        const auto info = q.get(sent[i].id);
        ASSERT_TRUE(info) << i;
        EXPECT_EQ(info->payload, batch[i].payload) << i;
        EXPECT_EQ(q.cancel(sent[i].id), CancelResult::kCancelled) << i;
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

}  // namespace
}  // namespace delayq::test
