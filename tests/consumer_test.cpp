// The Consumer: handling every message, waking for sends without polling, start and stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using ConsumerTest = RedisTest;

// Sends a message due in an hour, which it returns, and one due now: a consumer that has handled
// the one due now sleeps until the other is due.
SendResult send_later_and_now(Queue& q) {
    const SendResult later = q.send("far", {.delay = 1h});
    q.send("now");
    return later;
}

TEST_F(ConsumerTest, HandlesEveryMessageOnce) {
    Queue q = queue();
    std::vector<Message> batch;
    for (int i = 0; i < 200; ++i) batch.push_back({std::to_string(i), {}});
    q.send_batch(batch);

    Collector<DeliveryRecord> seen;
    ConsumerOptions o = fast_options();
    o.concurrency = 4;
    o.max_batch = 16;
    Consumer c(leases(q), recording(seen), o);
    c.start();
    ASSERT_TRUE(seen.wait_for(200));
    c.stop();
    c.wait();

    std::set<std::string> payloads;
    for (const auto& r : seen.items()) {
        payloads.insert(r.payload);
        EXPECT_EQ(r.attempt, 1);
        EXPECT_GE(r.delivered_at_ms, r.due_ms);
    }
    EXPECT_EQ(seen.size(), 200u);
    EXPECT_EQ(payloads.size(), 200u);
    const ConsumerStats st = c.stats();
    EXPECT_EQ(st.fetched, 200u);
    EXPECT_EQ(st.acked, 200u);
    EXPECT_EQ(st.nacked, 0u);
    EXPECT_EQ(st.leases_lost, 0u);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(ConsumerTest, RunBlocksUntilStop) {
    Queue q = queue();
    q.send("x");
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), fast_options());
    std::atomic<bool> returned{false};
    std::thread runner([&] {
        c.run();
        returned = true;
    });
    ASSERT_TRUE(seen.wait_for(1));
    EXPECT_FALSE(returned.load());
    c.stop();
    runner.join();
    EXPECT_TRUE(returned.load());
    EXPECT_EQ(admin(q).stats().totals.acked, 1u);
}

TEST_F(ConsumerTest, WakesForSendsWithoutPolling) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    // No safety net: only the wake-up signal can help.
    Consumer c(leases(q), recording(seen), without_idle_polling());
    c.start();
    q.send("first");
    ASSERT_TRUE(seen.wait_for(1));
    // Now idle on an empty queue.
    q.send("second");
    ASSERT_TRUE(seen.wait_for(2));
    const SendResult third = q.send("third", {.delay = 300ms});
    ASSERT_TRUE(seen.wait_for(3));
    const DeliveryRecord r = seen.items()[2];
    EXPECT_EQ(r.id, third.id);
    EXPECT_EQ(r.due_ms, ms(third.due));
    EXPECT_GE(r.delivered_at_ms, r.due_ms);
}

TEST_F(ConsumerTest, WakesForAnEarlierSendWhileWaitingForALaterMessage) {
    Queue q = queue();
    const SendResult far = send_later_and_now(q);
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), without_idle_polling());
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    // Sleeping until `far` is due: an earlier message must cut that short.
    const SendResult near = q.send("near", {.delay = 200ms});
    ASSERT_TRUE(seen.wait_for(2));
    const DeliveryRecord r = seen.items()[1];
    EXPECT_EQ(r.id, near.id);
    EXPECT_GE(r.delivered_at_ms, ms(near.due));
    EXPECT_EQ(admin(q).get(far.id)->state, State::kScheduled);
}

TEST_F(ConsumerTest, WakesWhenAMessageIsRescheduledEarlier) {
    Queue q = queue();
    const SendResult far = send_later_and_now(q);
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), without_idle_polling());
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    const RescheduleResult r = q.reschedule(far.id, 100ms);
    ASSERT_EQ(r.status, RescheduleStatus::kRescheduled);
    ASSERT_TRUE(seen.wait_for(2));
    EXPECT_EQ(seen.items()[1].id, far.id);
    EXPECT_GE(seen.items()[1].delivered_at_ms, ms(r.due));
}

TEST_F(ConsumerTest, SleepsUntilTheNextDueMessage) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 700ms});
    Collector<DeliveryRecord> seen;
    // It must aim at the due time, not poll.
    Consumer c(leases(q), recording(seen), without_idle_polling());
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    EXPECT_EQ(seen.items()[0].id, s.id);
    EXPECT_GE(seen.items()[0].delivered_at_ms, ms(s.due));
}

TEST_F(ConsumerTest, DestructorStopsARunningConsumer) {
    Queue q = queue();
    send_many(q, 5);
    Collector<DeliveryRecord> seen;
    {
        ConsumerOptions o = fast_options();
        o.prefetch = 10;
        Consumer c(leases(q), recording(seen), o);
        c.start();
        ASSERT_TRUE(seen.wait_for(1));
    }
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.in_flight, 0u);
    EXPECT_EQ(st.ready + st.totals.acked, 5u);
    EXPECT_EQ(st.totals.acked, seen.size());
}

TEST_F(ConsumerTest, ConsumerThatNeverStartedIsHarmless) {
    Queue q = queue();
    q.send("x");
    {
        Consumer c(leases(q), ack_all, fast_options());
        EXPECT_EQ(c.stats().fetched, 0u);
    }
    EXPECT_EQ(admin(q).stats().ready, 1u);
}

}  // namespace
}  // namespace delayq::test
