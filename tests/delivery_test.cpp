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

// An idle fetch replies one empty table the function library keeps for the deliveries and the
// dead events it has none of (fetch.lua): a fetch that reported both must leave it empty.
TEST_F(DeliveryTest, AnIdleFetchAfterOneThatReportedReportsNothing) {
    Queue q = queue();
    const SendResult dies = q.send("dies", {.expire_after = 100ms});
    wait_for_server_time_after(dies.due + 100ms);
    const SendResult lives = q.send("lives");
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 1u);
    EXPECT_EQ(f.deliveries[0].id(), lives.id);
    ASSERT_EQ(f.dead_lettered.size(), 1u);
    EXPECT_EQ(f.dead_lettered[0].id, dies.id);
    for (int i = 0; i < 3; ++i) {
        const FetchResult idle = leases(q).fetch(10, 30s);
        EXPECT_TRUE(idle.deliveries.empty());
        EXPECT_TRUE(idle.dead_lettered.empty());
        ASSERT_TRUE(idle.next);
        EXPECT_EQ(ms(*idle.next), ms(f.deliveries[0].delivered_at()) + 30'000);  // the lease's
    }
    // And another queue's idle fetch in between.
    Queue other = queue("other");
    EXPECT_TRUE(leases(other).fetch(10, 30s).dead_lettered.empty());
    EXPECT_EQ(leases(q).ack(lease_of(f.deliveries[0])).status, LeaseStatus::kAcked);
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

// A run states a due time its deliveries share once; a run of one whose next delivery has
// another due time turns into one where each delivery carries its own (fetch.lua's reply). Every
// shape must give each delivery its own due time, first deliveries and redeliveries (which also
// carry their last error) alike.
TEST_F(DeliveryTest, RunsOfSharedAndOwnDueTimesGiveEachDeliveryItsDueTime) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    // shared (2), then one that turns into own due times (3), then shared again inside it (2)
    const std::vector<std::int64_t> dues = {now - 9000, now - 9000, now - 8000, now - 7000,
                                            now - 6000, now - 6000, now - 5000};
    std::vector<Message> batch;
    for (std::size_t i = 0; i < dues.size(); ++i) {
        batch.push_back(Message{"m" + std::to_string(i), {.at = TimePoint(Duration(dues[i]))}});
    }
    q.send_batch(batch);
    const FetchResult first = leases(q).fetch(100, 30s);
    ASSERT_EQ(first.deliveries.size(), dues.size());
    for (std::size_t i = 0; i < dues.size(); ++i) {
        EXPECT_EQ(first.deliveries[i].payload(), "m" + std::to_string(i));
        EXPECT_EQ(ms(first.deliveries[i].due()), dues[i]) << i;
        EXPECT_EQ(first.deliveries[i].attempt(), 1) << i;
        EXPECT_EQ(first.deliveries[i].last_error(), "");
    }
    // Retried at due times of their own, some shared, in another order.
    const std::int64_t later = server().time_ms();
    const std::vector<std::int64_t> again = {later - 300, later - 300, later - 200, later - 100,
                                             later - 100, later - 50,  later - 20};
    for (std::size_t i = 0; i < dues.size(); ++i) {
        const Delivery& d = first.deliveries[i];
        ASSERT_EQ(leases(q)
                      .nack(lease_of(d), Nack{.delay = 0ms, .error = "e" + std::to_string(i)})
                      .status,
                  LeaseStatus::kRetrying);
        ASSERT_EQ(q.reschedule_at(d.id(), TimePoint(Duration(again[i]))).status,
                  RescheduleStatus::kRescheduled);
    }
    const FetchResult second = leases(q).fetch(100, 30s);
    ASSERT_EQ(second.deliveries.size(), dues.size());
    for (std::size_t i = 0; i < dues.size(); ++i) {
        const Delivery& d = second.deliveries[i];
        EXPECT_EQ(d.payload(), "m" + std::to_string(i));
        EXPECT_EQ(ms(d.due()), again[i]) << i;
        EXPECT_EQ(d.attempt(), 2) << i;
        EXPECT_EQ(d.last_error(), "e" + std::to_string(i));
        EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    }
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
