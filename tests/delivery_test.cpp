#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using DeliveryTest = RedisTest;

// The same delivery with another token: what a consumer holding a stale lease would send.
Delivery with_token(const Delivery& d, std::uint64_t token) {
    return Delivery(d.queue(), Lease(d.id(), token), d.payload(), d.attempt(), d.max_attempts(),
                    d.due(), d.delivered_at());
}

// Answers `d`, whose lease is not the current one, in every way there is: each answer must be
// refused as a lost lease.
void expect_every_answer_refused(Leases l, const Delivery& d, const std::string& error) {
    EXPECT_EQ(l.ack(lease_of(d)).status, LeaseStatus::kLost);
    EXPECT_EQ(l.nack(lease_of(d), Nack{.delay = 0ms, .error = error}).status, LeaseStatus::kLost);
    EXPECT_EQ(l.reject(lease_of(d), Reject{.error = error}).status, LeaseStatus::kLost);
    EXPECT_EQ(l.extend(lease_of(d), 1h).status, LeaseStatus::kLost);
    EXPECT_EQ(l.release(lease_of(d)).status, LeaseStatus::kLost);
}

TEST_F(DeliveryTest, EmptyQueueFetchesNothingAndIsIdle) {
    Queue q = queue();
    const std::int64_t before = server().time_ms();
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    EXPECT_FALSE(f.next);
    EXPECT_TRUE(f.dead_lettered.empty());
    EXPECT_GE(ms(f.now), before);
    EXPECT_LE(ms(f.now), server().time_ms());
}

TEST_F(DeliveryTest, DeliveryCarriesTheMessageAndALease) {
    Queue q = queue("orders");
    const SendResult s = q.send("payload", {.max_attempts = 4});
    const std::int64_t before = server().time_ms();
    const FetchResult f = leases(q).fetch(1, 30s);
    ASSERT_EQ(f.deliveries.size(), 1u);
    const Delivery& d = f.deliveries[0];
    EXPECT_EQ(d.queue(), "orders");
    EXPECT_EQ(d.id(), s.id);
    EXPECT_EQ(d.payload(), "payload");
    EXPECT_NE(d.lease().token(), 0u);
    EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(d.max_attempts(), 4);
    EXPECT_EQ(ms(d.due()), ms(s.due));
    EXPECT_GE(ms(d.delivered_at()), before);
    EXPECT_EQ(ms(d.delivered_at()), ms(f.now));
    EXPECT_GE(ms(d.delivered_at()), ms(d.due()));

    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->attempts, 1);
    ASSERT_TRUE(info->lease_deadline);
    EXPECT_EQ(ms(*info->lease_deadline), ms(f.now) + 30'000);
}

TEST_F(DeliveryTest, BatchFetchHonoursMaxCount) {
    Queue q = queue();
    send_many(q, 10);
    const FetchResult first = leases(q).fetch(4, 30s);
    EXPECT_EQ(first.deliveries.size(), 4u);
    // A full batch means more may be waiting: call again at once.
    ASSERT_TRUE(first.next);
    EXPECT_LE(ms(*first.next), ms(first.now));
    const FetchResult second = leases(q).fetch(100, 30s);
    EXPECT_EQ(second.deliveries.size(), 6u);
    std::set<std::string> ids;
    for (const auto& d : first.deliveries) ids.insert(d.id());
    for (const auto& d : second.deliveries) ids.insert(d.id());
    EXPECT_EQ(ids.size(), 10u);
    std::set<std::uint64_t> tokens;
    for (const auto& d : first.deliveries) tokens.insert(d.lease().token());
    for (const auto& d : second.deliveries) tokens.insert(d.lease().token());
    EXPECT_EQ(tokens.size(), 10u);
    EXPECT_TRUE(leases(q).fetch(100, 30s).deliveries.empty());
    EXPECT_EQ(admin(q).stats().in_flight, 10u);
}

// fetch takes the messages that share the head's due time without their scores and the rest with
// them, and replies in runs (fetch.lua): both parts must come in due order, each with its own due
// time and max_attempts, nothing skipped or taken twice, whether the batch ends inside the group,
// at its end or after it.
TEST_F(DeliveryTest, BatchAcrossSharedAndDistinctDueTimesKeepsOrderAndDueTimes) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    const std::vector<std::int64_t> dues = {now - 5000, now - 5000, now - 5000, now - 5000,
                                            now - 4000, now - 4000, now - 3000, now - 2000};
    std::vector<Message> batch;
    for (std::size_t i = 0; i < dues.size(); ++i) {
        // max_attempts changes within a due time too: fetch replies in runs that share due time,
        // attempt and max_attempts.
        const int max = i < 3 ? 5 : 2 + static_cast<int>(i % 2);
        batch.push_back(Message{"m" + std::to_string(i),
                                {.at = TimePoint(Duration(dues[i])), .max_attempts = max}});
    }
    q.send_batch(batch);
    std::vector<Delivery> got;
    for (std::size_t count : {2u, 4u, 1u, 10u}) {  // inside the group, past it, one, the rest
        for (auto& d : leases(q).fetch(count, 30s).deliveries) got.push_back(std::move(d));
    }
    ASSERT_EQ(got.size(), dues.size());
    for (std::size_t i = 0; i < dues.size(); ++i) {
        EXPECT_EQ(got[i].payload(), "m" + std::to_string(i));
        EXPECT_EQ(ms(got[i].due()), dues[i]) << i;
        EXPECT_EQ(got[i].max_attempts(), i < 3 ? 5 : 2 + static_cast<int>(i % 2)) << i;
        EXPECT_EQ(got[i].attempt(), 1) << i;
        EXPECT_EQ(leases(q).ack(lease_of(got[i])).status, LeaseStatus::kAcked);
    }
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.ready + st.scheduled + st.in_flight, 0u);
}

TEST_F(DeliveryTest, NextPointsAtTheEarliestDueOrLeaseDeadline) {
    Queue q = queue();
    const SendResult later = q.send("later", {.delay = 1h});
    FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_TRUE(f.next);
    EXPECT_EQ(ms(*f.next), ms(later.due));

    q.send("now");
    f = leases(q).fetch(10, 2s);
    ASSERT_EQ(f.deliveries.size(), 1u);
    ASSERT_TRUE(f.next);
    // The lease of the delivered message runs out before the scheduled one is due.
    EXPECT_EQ(ms(*f.next), ms(f.now) + 2000);
}

TEST_F(DeliveryTest, AckDeletesEveryTrace) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.expire_after = 1h});
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin(q).get(s.id));
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    EXPECT_EQ(admin(q).stats().totals.acked, 1u);
}

TEST_F(DeliveryTest, BatchAckAcksEachHeldLeaseOnce) {
    Queue q = queue();
    send_many(q, 3);
    FetchResult r = fetch_some(q, 3, 30s);
    ASSERT_EQ(r.deliveries.size(), 3u);
    const Delivery stale = r.deliveries[2];
    ASSERT_EQ(leases(q).ack(lease_of(stale)).status, LeaseStatus::kAcked);
    const std::vector<Delivery> batch{r.deliveries[0], r.deliveries[1], r.deliveries[0], stale};
    std::vector<LeaseStatus> statuses;
    for (const LeaseResult& answer : leases(q).ack(lease_of(batch)))
        statuses.push_back(answer.status);
    EXPECT_EQ(statuses, (std::vector<LeaseStatus>{LeaseStatus::kAcked, LeaseStatus::kAcked,
                                                  LeaseStatus::kLost, LeaseStatus::kLost}));
    EXPECT_EQ(admin(q).stats().totals.acked, 3u);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    EXPECT_TRUE(leases(q).ack(lease_of(std::span<const Delivery>{})).empty());
    const std::vector<Delivery> too_many(1001, stale);
    EXPECT_THROW(leases(q).ack(lease_of(too_many)), InvalidArgument);
}

TEST_F(DeliveryTest, SecondAckReportsLeaseLost) {
    Queue q = queue();
    q.send("x");
    const Delivery d = fetch_one(q);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kLost);
    EXPECT_EQ(leases(q).nack(lease_of(d), Nack{.delay = 0ms, .error = "late"}).status,
              LeaseStatus::kLost);
    EXPECT_EQ(leases(q).extend(lease_of(d), 30s).status, LeaseStatus::kLost);
    EXPECT_EQ(leases(q).release(lease_of(d)).status, LeaseStatus::kLost);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    EXPECT_EQ(admin(q).stats().totals.acked, 1u);
}

TEST_F(DeliveryTest, WrongTokenChangesNothing) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const auto before = admin(q).get(s.id);
    ASSERT_TRUE(before);
    const Delivery forged = with_token(d, d.lease().token() + 1);
    expect_every_answer_refused(leases(q), forged, "forged");
    const auto after = admin(q).get(s.id);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->state, State::kInFlight);
    EXPECT_EQ(after->attempts, before->attempts);
    EXPECT_EQ(ms(after->lease_deadline), ms(before->lease_deadline));
    EXPECT_EQ(after->last_error, "");
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

TEST_F(DeliveryTest, LapsedLeaseIsRedeliveredWithTheNextAttempt) {
    Queue q = queue();
    const auto [s, first] = send_and_fetch(q, "x", {}, 300ms);
    EXPECT_EQ(first.attempt(), 1);
    // Nothing else can have it while the lease holds.
    const FetchResult during = leases(q).fetch(10, 300ms);
    if (ms(during.now) < ms(first.delivered_at()) + 300) {
        EXPECT_TRUE(during.deliveries.empty());
    }

    const Delivery second = fetch_one(q, 30s);
    EXPECT_EQ(second.id(), s.id);
    EXPECT_EQ(second.attempt(), 2);
    EXPECT_NE(second.lease().token(), first.lease().token());
    EXPECT_GE(ms(second.delivered_at()), ms(first.delivered_at()) + 300);
    EXPECT_GE(ms(second.delivered_at()), ms(second.due()));

    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->attempts, 2);
    EXPECT_NE(info->last_error.find("visibility timeout"), std::string::npos) << info->last_error;
    EXPECT_EQ(admin(q).stats().totals.retried, 1u);
}

TEST_F(DeliveryTest, StaleLeaseCannotAckNackExtendOrRelease) {
    Queue q = queue();
    const auto [s, stale] = send_and_fetch(q, "x", {}, 300ms);
    const Delivery fresh = fetch_one(q, 30s);
    ASSERT_EQ(fresh.attempt(), 2);
    const auto before = admin(q).get(s.id);

    expect_every_answer_refused(leases(q), stale, "stale");

    const auto after = admin(q).get(s.id);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->state, State::kInFlight);
    EXPECT_EQ(after->attempts, 2);
    EXPECT_EQ(ms(after->lease_deadline), ms(before->lease_deadline));
    EXPECT_EQ(after->last_error, before->last_error);
    EXPECT_EQ(leases(q).ack(lease_of(fresh)).status, LeaseStatus::kAcked);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(DeliveryTest, LapsedLeaseOnTheLastAttemptDeadLetters) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 1}, 300ms);
    FetchResult f;
    ASSERT_TRUE(eventually([&] {
        f = leases(q).fetch(10, 30s);
        return !f.dead_lettered.empty();
    }));
    EXPECT_TRUE(f.deliveries.empty());
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].id, s.id);
    EXPECT_EQ(f.dead_lettered[0].queue, "q");
    EXPECT_EQ(f.dead_lettered[0].reason, "attempts exhausted");
    EXPECT_EQ(f.dead_lettered[0].attempts, 1);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->dead_reason, "attempts exhausted");
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kLost);
}

TEST_F(DeliveryTest, NackWithDelayRetriesLater) {
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

TEST_F(DeliveryTest, NackWithoutDelayRetries) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.error = "default delay"});
    ASSERT_EQ(n.status, LeaseStatus::kRetrying);
    // Some backoff applies: not an immediate retry.
    EXPECT_GT(ms(n.at), ms(d.delivered_at()));
    EXPECT_EQ(admin(q).get(s.id)->last_error, "default delay");
}

TEST_F(DeliveryTest, NackOnTheLastAttemptDeadLetters) {
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

TEST_F(DeliveryTest, RejectDeadLettersAtOnce) {
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

TEST_F(DeliveryTest, ExtendRenewsTheLease) {
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

TEST_F(DeliveryTest, ReleaseHandsBackWithoutCountingTheAttempt) {
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

TEST_F(DeliveryTest, ReleasedMessageKeepsItsPlaceInLine) {
    Queue q = queue();
    const auto at =
        std::chrono::system_clock::time_point(std::chrono::milliseconds(server().time_ms() - 1000));
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

TEST_F(DeliveryTest, IndexEntriesWithoutARecordAreDroppedAndCounted) {
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

// A leased record carries a lease tail (docs/design.md, Record). After data loss a message can be
// pending again while its record still has one: the next delivery must replace it, not stack a
// second tail (which would read as another shape).
TEST_F(DeliveryTest, PendingRecordStillCarryingALeaseIsDeliveredWithAFreshOne) {
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

TEST_F(DeliveryTest, UnfetchedMessagePastItsExpiryIsDeadLettered) {
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

TEST_F(DeliveryTest, InFlightMessagePastItsExpiryIsDeadLetteredWhenItsLeaseLapses) {
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

TEST_F(DeliveryTest, NackPastTheExpiryDeadLetters) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 5, .expire_after = 1000ms}, 30s);
    wait_for_server_time_after(s.due + 1000ms);
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.delay = 0ms, .error = "slow"});
    EXPECT_EQ(n.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(n.dead_reason, "expired");
    EXPECT_EQ(admin(q).get(s.id)->last_error, "slow");
}

TEST_F(DeliveryTest, RetryIsNotScheduledPastTheExpiry) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.max_attempts = 5, .expire_after = 1h}, 30s);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info && info->expire_at);
    const LeaseResult n = leases(q).nack(lease_of(d), Nack{.delay = 2h, .error = "later"});
    ASSERT_EQ(n.status, LeaseStatus::kRetrying);
    EXPECT_EQ(ms(n.at), ms(*info->expire_at));
}

TEST_F(DeliveryTest, AckAfterAnEventfulLifeLeavesOnlyCounters) {
    Queue q = queue();
    const SendResult a = q.send("a", {.max_attempts = 3});
    const SendResult b = q.send("b", {.max_attempts = 1});
    q.send("c", {.delay = 1h, .id = "c"});

    FetchResult f = leases(q).fetch(10, 300ms);
    ASSERT_EQ(f.deliveries.size(), 2u);
    // a: a nack, then a lapsed lease. b: a lapsed lease on its only attempt.
    ASSERT_EQ(
        leases(q).nack(lease_of(f.deliveries[0]), Nack{.delay = 0ms, .error = "first"}).status,
        LeaseStatus::kRetrying);
    ASSERT_EQ(fetch_one(q, 300ms).attempt(), 2);
    std::optional<Delivery> a3;
    ASSERT_TRUE(eventually([&] {
        for (const auto& d : leases(q).fetch(1, 30s).deliveries) a3 = d;
        const auto info = admin(q).get(b.id);
        return a3 && info && info->state == State::kDead;
    }));
    EXPECT_EQ(a3->id(), a.id);
    EXPECT_EQ(a3->attempt(), 3);

    const std::vector<std::string> b_ids = {b.id};
    EXPECT_EQ(admin(q).purge({.ids = b_ids}), 1u);
    EXPECT_EQ(leases(q).ack(lease_of(*a3)).status, LeaseStatus::kAcked);
    EXPECT_EQ(q.cancel("c"), CancelResult::kCancelled);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(DeliveryTest, AckOfARequeuedDeadLetterLeavesOnlyCounters) {
    Queue q = queue();
    const SendResult s = q.send("x");
    ASSERT_EQ(leases(q).reject(lease_of(fetch_one(q)), Reject{.error = "bad"}).status,
              LeaseStatus::kDeadLettered);
    EXPECT_EQ(admin(q).requeue({.all = true}), 1u);
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), s.id);
    EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin(q).get(s.id));
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

}  // namespace
}  // namespace delayq::test
