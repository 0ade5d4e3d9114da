#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using RetryTest = RedisTest;

TEST_F(RetryTest, NackWithDelayRetriesLater) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const std::int64_t before = server().time_ms();
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.delay = 500ms, .error = "try again"});
    const std::int64_t after = server().time_ms();
    ASSERT_EQ(n.status, LeaseStatus::kRetrying);
    EXPECT_GE(ms(n.at), before + 500);
    EXPECT_LE(ms(n.at), after + 500);

    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->last_error, "try again");
    EXPECT_EQ(info->attempts, 1);
    EXPECT_EQ(ms(info->due), ms(n.at));
    EXPECT_NE(info->state, State::kInFlight);

    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.id(), s.id);
    EXPECT_EQ(again.attempt(), 2);
    EXPECT_EQ(ms(again.due()), ms(n.at));
    EXPECT_GE(ms(again.delivered_at()), ms(n.at));
    EXPECT_EQ(admin(q).stats().totals.retried, 1u);
    EXPECT_EQ(leases(q).ack(lease_of(again)).status, LeaseStatus::kAcked);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(RetryTest, NackWithoutDelayRetries) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.error = "default delay"});
    ASSERT_EQ(n.status, LeaseStatus::kRetrying);
    // Some backoff applies: not an immediate retry.
    EXPECT_GT(ms(n.at), ms(d.delivered_at()));
    EXPECT_EQ(admin(q).get(s.id)->last_error, "default delay");
}

TEST_F(RetryTest, NackOnTheLastAttemptDeadLetters) {
    Queue q = queue();
    const auto [s, d1] = send_and_fetch(q, "x", {.max_attempts = 2});
    EXPECT_EQ(leases(q).nack(lease_of(d1), Nack{.delay = 0ms, .error = "first"}).status,
              LeaseStatus::kRetrying);
    const Delivery d2 = fetch_one(q);
    EXPECT_EQ(d2.attempt(), 2);
    const LeaseResult n = leases(q).nack(lease_of(d2), Nack{.delay = 0ms, .error = "second"});
    EXPECT_EQ(n.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(n.dead_reason, "attempts exhausted");
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->attempts, 2);
    EXPECT_EQ(info->last_error, "second");
    EXPECT_EQ(info->dead_reason, "attempts exhausted");
    ASSERT_TRUE(info->dead_at);
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
}

TEST_F(RetryTest, RejectDeadLettersAtOnce) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 10});
    const LeaseResult n = leases(q).reject(lease_of(d), Reject{.error = "poison"});
    EXPECT_EQ(n.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(n.dead_reason, "rejected");
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->last_error, "poison");
    EXPECT_EQ(info->attempts, 1);
    EXPECT_EQ(admin(q).stats().totals.dead_lettered, 1u);
}

TEST_F(RetryTest, ExtendRenewsTheLease) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {}, 300ms);
    const std::int64_t before = server().time_ms();
    const LeaseResult extended = leases(q).extend(lease_of(d), 60s);
    ASSERT_EQ(extended.status, LeaseStatus::kExtended);
    EXPECT_GE(ms(extended.at), before + 60'000);
    EXPECT_EQ(ms(admin(q).get(s.id)->lease_deadline), ms(extended.at));

    // Past the original lease, the message is still this consumer's.
    wait_for_server_time_after(d.delivered_at() + 300ms);
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    EXPECT_EQ(admin(q).get(s.id)->attempts, 1);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_EQ(admin(q).stats().totals.retried, 0u);
}

TEST_F(RetryTest, ReleaseHandsBackWithoutCountingTheAttempt) {
    Queue q = queue();
    // One attempt only: a release must not use it up.
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 1});
    EXPECT_EQ(leases(q).release(lease_of(d)).status, LeaseStatus::kReleased);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kReady);
    EXPECT_EQ(info->attempts, 0);
    EXPECT_EQ(ms(info->due), ms(s.due));
    EXPECT_EQ(leases(q).release(lease_of(d)).status, LeaseStatus::kLost);
    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.attempt(), 1);
    EXPECT_EQ(ms(again.due()), ms(s.due));
    EXPECT_EQ(admin(q).stats().totals.released, 1u);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kLost);
    EXPECT_EQ(leases(q).ack(lease_of(again)).status, LeaseStatus::kAcked);
}

TEST_F(RetryTest, ReleasedMessageKeepsItsPlaceInLine) {
    Queue q = queue();
    const TimePoint at(Duration(server().time_ms() - 1000));
    const SendResult a = q.send("a", {.at = at});
    const SendResult b = q.send("b", {.at = at});
    const Delivery first = fetch_one(q);
    ASSERT_EQ(first.id(), a.id);
    ASSERT_EQ(leases(q).release(lease_of(first)).status, LeaseStatus::kReleased);
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    EXPECT_EQ(f.deliveries[0].id(), a.id);
    EXPECT_EQ(f.deliveries[1].id(), b.id);
}

// Redis lost the record of a leased message (a stray HDEL, a partial restore): releasing the lease
// drops an orphan, counted as nack and the fetch sweep count theirs, so that every message sent
// stays accounted for in the totals.
TEST_F(RetryTest, ReleaseOfALeaseWhoseRecordVanishedCountsTheOrphan) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    ASSERT_EQ(server().integer({"HDEL", queue_key("q", "msg"), s.id}), 1);
    EXPECT_EQ(leases(q).release(lease_of(d)).status, LeaseStatus::kLost);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.in_flight, 0u);
    EXPECT_EQ(st.totals.released, 0u);
    EXPECT_EQ(st.totals.orphans_removed, 1u);
    EXPECT_EQ(st.totals.sent, st.totals.orphans_removed);
}

TEST_F(RetryTest, IndexEntriesWithoutARecordAreDroppedAndCounted) {
    Queue q = queue();
    send_many(q, 3);
    // Data loss inside Redis (a partial restore, a stray DEL): the records are gone.
    ASSERT_EQ(server().integer({"DEL", queue_key("q", "msg")}), 1);
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.ready, 0u);
    EXPECT_EQ(st.in_flight, 0u);
    EXPECT_EQ(st.totals.orphans_removed, 3u);
}

// A leased record ends with its token (docs/design.md, Record). After data loss a message can be
// pending again while its record still has one: the next delivery must replace it, not stack a
// second token (which would read as another shape).
TEST_F(RetryTest, PendingRecordStillCarryingALeaseIsDeliveredWithAFreshOne) {
    Queue q = queue();
    const auto [s, first] = send_and_fetch(q, "x", {.max_attempts = 5});
    char token[32];
    std::snprintf(token, sizeof token, "%014llx",
                  static_cast<unsigned long long>(first.lease().token()));
    // What a lost ack or a rolled-back AOF can leave: the lease gone, the message pending again.
    ASSERT_EQ(server().integer({"ZREM", queue_key("q", "inflight"), std::string(token) + s.id}), 1);
    ASSERT_EQ(
        server().integer({"ZADD", queue_key("q", "pending"), std::to_string(ms(s.due)), s.id}), 1);
    const Delivery second = fetch_one(q);
    EXPECT_EQ(second.id(), s.id);
    EXPECT_EQ(second.payload(), "x");
    EXPECT_EQ(second.attempt(), 2);
    EXPECT_EQ(second.max_attempts(), 5);
    EXPECT_EQ(ms(second.due()), ms(s.due));
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->attempts, 2);
    EXPECT_EQ(info->payload, "x");
    EXPECT_EQ(leases(q).ack(lease_of(first)).status, LeaseStatus::kLost);
    EXPECT_EQ(leases(q).nack(lease_of(second), Nack{.delay = 0ms, .error = "again"}).status,
              LeaseStatus::kRetrying);
    const Delivery third = fetch_one(q);
    EXPECT_EQ(third.attempt(), 3);
    EXPECT_EQ(third.payload(), "x");
    EXPECT_EQ(leases(q).ack(lease_of(third)).status, LeaseStatus::kAcked);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(RetryTest, UnfetchedMessagePastItsExpiryIsDeadLettered) {
    Queue q = queue();
    const SendResult s = q.send("x", {.expire_after = 300ms});
    const auto expire_at = admin(q).get(s.id)->expire_at;
    ASSERT_TRUE(expire_at);
    // Without a delay, the due time is the send's Redis time.
    EXPECT_EQ(ms(*expire_at), ms(s.due) + 300);
    wait_for_server_time_after(*expire_at);
    FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].id, s.id);
    EXPECT_EQ(f.dead_lettered[0].reason, "expired");
    EXPECT_EQ(f.dead_lettered[0].attempts, 0);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->dead_reason, "expired");
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.totals.expired, 1u);
    EXPECT_EQ(st.totals.dead_lettered, 1u);
    EXPECT_EQ(st.totals.delivered, 0u);
}

// A message dead-lettered by its expiry before its first delivery keeps its due time: get and list
// show it, and a later send of its id reports it as the duplicate's due time (not 1970).
TEST_F(RetryTest, MessageExpiredBeforeDeliveryKeepsItsDueTime) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 20ms, .id = "e1", .expire_after = 50ms});
    wait_for_server_time_after(s.due + 50ms);
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].reason, "expired");

    const auto info = admin(q).get("e1");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(ms(info->due), ms(s.due));
    const std::vector<MessageInfo> dead = admin(q).list(State::kDead).messages;
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(ms(dead[0].due), ms(s.due));

    const SendResult again = q.send("y", {.id = "e1"});
    EXPECT_TRUE(again.duplicate);
    EXPECT_EQ(ms(again.due), ms(s.due));
}

TEST_F(RetryTest, InFlightMessagePastItsExpiryIsDeadLetteredWhenItsLeaseLapses) {
    Queue q = queue();
    // Long enough that the fetch below surely comes before the expiry, even on a loaded machine.
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 5, .expire_after = 1000ms}, 1500ms);
    FetchResult f;
    ASSERT_TRUE(eventually([&] {
        f = leases(q).fetch(10, 30s);
        return !f.dead_lettered.empty() || !f.deliveries.empty();
    }));
    EXPECT_TRUE(f.deliveries.empty());
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].reason, "expired");
    EXPECT_EQ(admin(q).get(s.id)->dead_reason, "expired");
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kLost);
}

TEST_F(RetryTest, NackPastTheExpiryDeadLetters) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 5, .expire_after = 1000ms}, 30s);
    wait_for_server_time_after(s.due + 1000ms);
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.delay = 0ms, .error = "slow"});
    EXPECT_EQ(n.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(n.dead_reason, "expired");
    EXPECT_EQ(admin(q).get(s.id)->last_error, "slow");
}

TEST_F(RetryTest, RetryIsNotScheduledPastTheExpiry) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 5, .expire_after = 1h}, 30s);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info && info->expire_at);
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.delay = 2h, .error = "later"});
    ASSERT_EQ(n.status, LeaseStatus::kRetrying);
    EXPECT_EQ(ms(n.at), ms(*info->expire_at));
}

}  // namespace
}  // namespace delayq::test
