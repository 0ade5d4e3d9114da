#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using CancelRescheduleTest = RedisTest;

TEST_F(CancelRescheduleTest, CancelScheduledMessageRemovesEveryTrace) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1h});
    EXPECT_EQ(q.cancel(s.id), CancelResult::kCancelled);
    EXPECT_FALSE(admin(q).get(s.id));
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    EXPECT_EQ(admin(q).stats().totals.cancelled, 1u);
    EXPECT_EQ(q.cancel(s.id), CancelResult::kNotFound);
}

TEST_F(CancelRescheduleTest, CancelReadyMessage) {
    Queue q = queue();
    const SendResult s = q.send("x", {.id = "ready-one"});
    ASSERT_EQ(admin(q).get(s.id)->state, State::kReady);
    EXPECT_EQ(q.cancel("ready-one"), CancelResult::kCancelled);
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(CancelRescheduleTest, CancelRetryingMessageRemovesItsLastError) {
    Queue q = queue();
    const SendResult s = q.send("x");
    leases(q).nack(lease_of(fetch_one(q)), Nack{.delay = 1h, .error = "later"});
    EXPECT_EQ(q.cancel(s.id), CancelResult::kCancelled);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(CancelRescheduleTest, CancelUnknownId) {
    Queue q = queue();
    EXPECT_EQ(q.cancel("never-sent"), CancelResult::kNotFound);
    EXPECT_EQ(admin(q).stats().totals.cancelled, 0u);
}

TEST_F(CancelRescheduleTest, CancelInFlightReportsAndChangesNothing) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const auto before = admin(q).get(s.id);
    EXPECT_EQ(q.cancel(s.id), CancelResult::kInFlight);
    const auto after = admin(q).get(s.id);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->state, State::kInFlight);
    EXPECT_EQ(ms(after->lease_deadline), ms(before->lease_deadline));
    EXPECT_EQ(admin(q).stats().totals.cancelled, 0u);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

TEST_F(CancelRescheduleTest, CancelDeadReportsAndChangesNothing) {
    Queue q = queue();
    const SendResult s = q.send("x");
    leases(q).reject(lease_of(fetch_one(q)), Reject{.error = "no"});
    EXPECT_EQ(q.cancel(s.id), CancelResult::kDead);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->last_error, "no");
    EXPECT_EQ(admin(q).stats().dead, 1u);
}

TEST_F(CancelRescheduleTest, RescheduleLaterByDelay) {
    Queue q = queue();
    const SendResult s = q.send("x");
    const std::int64_t before = server().time_ms();
    const RescheduleResult r = q.reschedule(s.id, 1h);
    const std::int64_t after = server().time_ms();
    ASSERT_EQ(r.status, RescheduleStatus::kRescheduled);
    EXPECT_GE(ms(r.due), before + 3'600'000);
    EXPECT_LE(ms(r.due), after + 3'600'000);
    const auto info = admin(q).get(s.id);
    EXPECT_EQ(info->state, State::kScheduled);
    EXPECT_EQ(ms(info->due), ms(r.due));
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
}

TEST_F(CancelRescheduleTest, RescheduleEarlierMakesItDue) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1h});
    const RescheduleResult r = q.reschedule(s.id, 200ms);
    ASSERT_EQ(r.status, RescheduleStatus::kRescheduled);
    EXPECT_LT(ms(r.due), ms(s.due));
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), s.id);
    EXPECT_EQ(ms(d.due()), ms(r.due));
    EXPECT_GE(ms(d.delivered_at()), ms(r.due));
    EXPECT_EQ(d.attempt(), 1);
}

TEST_F(CancelRescheduleTest, RescheduleAtAbsoluteTime) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1h});
    const std::int64_t at = server().time_ms() + 7'200'000;
    const RescheduleResult r = q.reschedule_at(s.id, TimePoint(Duration(at)));
    ASSERT_EQ(r.status, RescheduleStatus::kRescheduled);
    EXPECT_EQ(ms(r.due), at);
    EXPECT_EQ(ms(admin(q).get(s.id)->due), at);
    EXPECT_EQ(ms(admin(q).stats().next_due), at);
}

TEST_F(CancelRescheduleTest, RescheduleIsCappedAtTheExpiry) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1s, .expire_after = 1h});
    const auto expire_at = admin(q).get(s.id)->expire_at;
    ASSERT_TRUE(expire_at);
    const RescheduleResult r = q.reschedule(s.id, 3h);
    ASSERT_EQ(r.status, RescheduleStatus::kRescheduled);
    EXPECT_EQ(ms(r.due), ms(*expire_at));
}

TEST_F(CancelRescheduleTest, RescheduleKeepsTheOrderOfOtherMessages) {
    Queue q = queue();
    const SendResult a = q.send("a", {.delay = 1h});
    const SendResult b = q.send("b", {.delay = 2h});
    q.reschedule(b.id, 0ms);
    const Delivery first = fetch_one(q);
    EXPECT_EQ(first.id(), b.id);
    EXPECT_EQ(admin(q).get(a.id)->state, State::kScheduled);
}

TEST_F(CancelRescheduleTest, RescheduleUnknownInFlightAndDeadReportAndChangeNothing) {
    Queue q = queue();
    EXPECT_EQ(q.reschedule("nope", 1s).status, RescheduleStatus::kNotFound);

    const auto [flying, d] = send_and_fetch(q, "f");
    const auto lease = admin(q).get(flying.id)->lease_deadline;
    EXPECT_EQ(q.reschedule(flying.id, 1h).status, RescheduleStatus::kInFlight);
    EXPECT_EQ(q.reschedule_at(flying.id, TimePoint(Duration(server().time_ms()))).status,
              RescheduleStatus::kInFlight);
    EXPECT_EQ(admin(q).get(flying.id)->state, State::kInFlight);
    EXPECT_EQ(ms(admin(q).get(flying.id)->lease_deadline), ms(lease));

    const SendResult dead = q.send("d");
    leases(q).reject(lease_of(fetch_one(q)), Reject{.error = "no"});
    EXPECT_EQ(q.reschedule(dead.id, 0ms).status, RescheduleStatus::kDead);
    EXPECT_EQ(admin(q).get(dead.id)->state, State::kDead);
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

}  // namespace
}  // namespace delayq::test
