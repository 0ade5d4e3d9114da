#include <set>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using InspectionTest = RedisTest;

TEST(StateNamesTest, RoundTrip) {
    for (State s : {State::kScheduled, State::kReady, State::kInFlight, State::kDead}) {
        const auto parsed = parse_state(to_string(s));
        ASSERT_TRUE(parsed) << to_string(s);
        EXPECT_EQ(*parsed, s);
    }
    EXPECT_EQ(to_string(State::kInFlight), "in_flight");
    EXPECT_EQ(to_string(State::kScheduled), "scheduled");
    EXPECT_EQ(parse_state("dead"), State::kDead);
    EXPECT_FALSE(parse_state("inflight"));
    EXPECT_FALSE(parse_state(""));
    EXPECT_FALSE(parse_state("READY"));
}

TEST_F(InspectionTest, StatsOfAnEmptyQueue) {
    Queue q = queue();
    const std::int64_t before = server().time_ms();
    const QueueStats s = admin(q).stats();
    EXPECT_GE(ms(s.now), before);
    EXPECT_EQ(s.scheduled, 0u);
    EXPECT_EQ(s.ready, 0u);
    EXPECT_EQ(s.in_flight, 0u);
    EXPECT_EQ(s.dead, 0u);
    EXPECT_FALSE(s.next_due);
    EXPECT_FALSE(s.oldest_due);
    EXPECT_EQ(s.oldest_ready_age, 0ms);
    EXPECT_EQ(s.totals.sent, 0u);
    // Inspection writes nothing.
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(InspectionTest, StatsCountEveryState) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    const auto at = [](std::int64_t t) { return TimePoint(Duration(t)); };
    // Sent first and fetched, so the ready ones below stay ready.
    q.send("dead");
    leases(q).reject(lease_of(fetch_one(q)), Reject{.error = "x"});
    q.send("flying");
    const Delivery flying = fetch_one(q);
    q.send("ready1", {.at = at(now - 5000)});
    q.send("ready2", {.at = at(now - 3000)});
    q.send("ready3");
    q.send("later1", {.at = at(now + 3'600'000)});
    q.send("later2", {.at = at(now + 7'200'000)});

    const QueueStats s = admin(q).stats();
    EXPECT_EQ(s.scheduled, 2u);
    EXPECT_EQ(s.ready, 3u);
    EXPECT_EQ(s.in_flight, 1u);
    EXPECT_EQ(s.dead, 1u);
    EXPECT_EQ(ms(s.next_due), now + 3'600'000);
    EXPECT_EQ(ms(s.oldest_due), now - 5000);
    EXPECT_EQ(s.oldest_ready_age.count(), ms(s.now) - (now - 5000));
    EXPECT_EQ(s.totals.sent, 7u);
    EXPECT_EQ(s.totals.delivered, 2u);
    EXPECT_EQ(s.totals.dead_lettered, 1u);
    EXPECT_EQ(s.totals.acked, 0u);

    leases(q).ack(lease_of(flying));
    EXPECT_EQ(admin(q).stats().in_flight, 0u);
    EXPECT_EQ(admin(q).stats().totals.acked, 1u);
}

// The timeline counts pending messages by due-time bucket from the Redis clock's now; leased
// ones are not pending.
TEST_F(InspectionTest, TimelineCountsPendingMessagesByDueTimeBucket) {
    Queue q = queue();
    q.send("due now");
    q.send("leased");
    fetch_one(q);
    q.send("in 30 s", {.delay = 30s});
    q.send("in 90 s", {.delay = 90s});
    q.send("in 100 s", {.delay = 100s});
    q.send("in 10 min", {.delay = 10min});
    const std::vector<Message> batch(20, Message{"in 4 min", {.delay = 4min}});
    q.send_batch(batch);  // stored as blocks: counted all the same

    const Timeline t = admin(q).timeline(1min, 5);
    EXPECT_EQ(t.bucket, Duration(1min));
    EXPECT_GT(ms(t.now), 0);
    EXPECT_EQ(t.ready, 1u);
    EXPECT_EQ(t.counts, (std::vector<std::size_t>{1, 2, 0, 20, 0}));
    EXPECT_EQ(t.later, 1u);
    EXPECT_EQ(admin(q).timeline(1h, 1).counts, std::vector<std::size_t>{24});

    for (const auto& [bucket, buckets] : {std::pair{Duration(0), std::size_t{5}},
                                          {Duration(-1), std::size_t{5}},
                                          {Duration(1min), std::size_t{0}},
                                          {Duration(1min), kMaxTimelineBuckets + 1},
                                          {Duration(kMaxTimeMs), std::size_t{2}}}) {
        EXPECT_THROW(admin(q).timeline(bucket, buckets), InvalidArgument)
            << bucket.count() << " x " << buckets;
    }
}

// The history in Redis: a point a period, whichever caller samples first, each the queue's
// stats then; an hour kept; gone with the queue.
TEST_F(InspectionTest, HistoryKeepsOnePointAPeriodForAnHour) {
    Queue q = queue();
    q.send("a");
    q.send("b", {.delay = 1h});
    QueueAdmin a = admin(q);
    EXPECT_TRUE(a.history(TimePoint{}).empty());
    const bool first = a.record_history();
    const bool second = client().admin("q").record_history();
    EXPECT_TRUE(first);
    auto points = a.history(TimePoint{});
    // A second point only when the period turned between the two calls.
    ASSERT_EQ(points.size(), second ? 2u : 1u);
    EXPECT_EQ(points[0].ready, 1u);
    EXPECT_EQ(points[0].scheduled, 1u);
    EXPECT_EQ(points[0].totals.sent, 2u);
    EXPECT_EQ(points[0].lateness.buckets.size(), admin(q).stats().lateness.buckets.size());
    EXPECT_TRUE(a.history(points.back().now + 1min).empty());

    // A point of a period more than an hour before goes with the next write.
    const std::string key = queue_key("q", "history");
    const std::int64_t old = server().time_ms() - 2 * 3600 * 1000;
    ASSERT_EQ(server().integer({"ZADD", key, std::to_string(old), "stale"}), 1);
    ASSERT_EQ(server().zcard(key), static_cast<long long>(points.size()) + 1);
    // Writes trim. This period has its point: without it (as when the next period comes),
    // the next call writes one, and the stale point goes.
    server().command({"ZREMRANGEBYSCORE", key, std::to_string(old + 1), "+inf"});
    ASSERT_TRUE(a.record_history());
    EXPECT_EQ(server().command({"ZSCORE", key, "stale"}).kind, RawReply::Kind::kNil);
    EXPECT_EQ(server().zcard(key), 1);

    EXPECT_THROW(a.history(from_ms(-1)), InvalidArgument);
    a.delete_queue(true);
    EXPECT_TRUE(queue_keys().empty());
}

// The overview's hour runs from the oldest point within it: a limit of 1 reads that alone.
TEST_F(InspectionTest, HistoryWithALimitReadsTheOldestPointsOnly) {
    Queue q = queue();
    q.send("a");
    QueueAdmin a = admin(q);
    ASSERT_TRUE(a.record_history());
    // The point moves to a period a minute before, so that this period takes a second one.
    const std::string key = queue_key("q", "history");
    const RawReply members = server().command({"ZRANGE", key, "0", "-1", "WITHSCORES"});
    ASSERT_EQ(members.elements.size(), 2u);
    const std::int64_t period = std::stoll(members.elements[1].str);
    ASSERT_EQ(server().integer({"ZADD", key, "XX", "CH", std::to_string(period - 60000),
                                members.elements[0].str}),
              1);
    q.send("b");
    ASSERT_TRUE(a.record_history());
    const std::vector<QueueStats> all = a.history(TimePoint{});
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].totals.sent, 1u);
    EXPECT_EQ(all[1].totals.sent, 2u);
    const std::vector<QueueStats> oldest = a.history(TimePoint{}, 1);
    ASSERT_EQ(oldest.size(), 1u);
    EXPECT_EQ(oldest[0].totals.sent, 1u);
    EXPECT_EQ(a.history(from_ms(period - 30000), 1).at(0).totals.sent, 2u) << "from `since` on";
    EXPECT_THROW(a.history(TimePoint{}, 0), InvalidArgument);
    EXPECT_THROW(a.history(TimePoint{}, kMaxBatch + 1), InvalidArgument);
}

TEST_F(InspectionTest, OldestDueOfOnlyFutureMessagesIsNotOverdue) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1h});
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(ms(st.oldest_due), ms(s.due));
    EXPECT_EQ(ms(st.next_due), ms(s.due));
    EXPECT_EQ(st.oldest_ready_age, 0ms);
}

TEST_F(InspectionTest, TotalsFollowTheLifecycle) {
    Queue q = queue();
    const SendResult a = q.send("a");
    q.send("b", {.delay = 1h, .id = "b"});
    leases(q).nack(lease_of(fetch_one(q)), Nack{.delay = 0ms, .error = "e"});
    leases(q).release(lease_of(fetch_one(q)));
    leases(q).ack(lease_of(fetch_one(q)));
    q.cancel("b");
    const Totals t = admin(q).stats().totals;
    EXPECT_EQ(t.sent, 2u);
    EXPECT_EQ(t.delivered, 3u);
    EXPECT_EQ(t.retried, 1u);
    EXPECT_EQ(t.released, 1u);
    EXPECT_EQ(t.acked, 1u);
    EXPECT_EQ(t.cancelled, 1u);
    EXPECT_EQ(t.dead_lettered, 0u);
    EXPECT_FALSE(admin(q).get(a.id));
}

TEST_F(InspectionTest, GetReportsEachState) {
    Queue q = queue();
    EXPECT_FALSE(admin(q).get("missing"));
    const SendResult scheduled = q.send("s", {.delay = 1h, .max_attempts = 3});
    auto info = admin(q).get(scheduled.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->id, scheduled.id);
    EXPECT_EQ(info->state, State::kScheduled);
    EXPECT_EQ(info->attempts, 0);
    EXPECT_EQ(info->max_attempts, 3);
    EXPECT_EQ(info->payload, "s");
    EXPECT_FALSE(info->lease_deadline);
    EXPECT_FALSE(info->dead_at);
    EXPECT_EQ(info->last_error, "");

    const auto [flying, d] = send_and_fetch(q, "f", {}, 10s);
    info = admin(q).get(flying.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kInFlight);
    ASSERT_TRUE(info->lease_deadline);
    EXPECT_EQ(ms(*info->lease_deadline), ms(d.delivered_at()) + 10'000);
    EXPECT_EQ(ms(info->due), ms(flying.due));
}

TEST_F(InspectionTest, ListPagesThroughScheduledMessagesInDueOrder) {
    Queue q = queue();
    std::vector<std::string> sent;
    // Sent in the reverse of their due order.
    for (int i = 25; i > 0; --i) {
        sent.insert(sent.begin(), q.send(std::to_string(i), {.delay = i * 1min}).id);
    }
    std::vector<std::string> listed;
    std::vector<std::size_t> page_sizes;
    PageRequest request{.limit = 10};
    for (;;) {
        MessagePage page = admin(q).list(State::kScheduled, request);
        page_sizes.push_back(page.messages.size());
        for (const auto& m : page.messages) {
            EXPECT_EQ(m.state, State::kScheduled);
            listed.push_back(m.id);
        }
        if (page.next_cursor.empty()) break;
        request.cursor = page.next_cursor;
        ASSERT_LT(page_sizes.size(), 10u) << "the cursor does not advance";
    }
    EXPECT_EQ(page_sizes, (std::vector<std::size_t>{10, 10, 5}));
    EXPECT_EQ(listed, sent);
    const auto first = admin(q).list(State::kScheduled, {.limit = 1}).messages;
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].payload, "1");
    EXPECT_TRUE(admin(q).list(State::kReady).messages.empty());
}

TEST_F(InspectionTest, ListSeparatesReadyFromScheduled) {
    Queue q = queue();
    const SendResult r1 = q.send("r1");
    const SendResult r2 = q.send("r2");
    const SendResult s1 = q.send("s1", {.delay = 1h});
    const auto ready = admin(q).list(State::kReady).messages;
    ASSERT_EQ(ready.size(), 2u);
    EXPECT_EQ(ready[0].id, r1.id);
    EXPECT_EQ(ready[1].id, r2.id);
    EXPECT_EQ(ready[0].state, State::kReady);
    const auto scheduled = admin(q).list(State::kScheduled).messages;
    ASSERT_EQ(scheduled.size(), 1u);
    EXPECT_EQ(scheduled[0].id, s1.id);
}

TEST_F(InspectionTest, ListInFlightByLeaseDeadline) {
    Queue q = queue();
    const SendResult a = q.send("a");
    const SendResult b = q.send("b");
    const Delivery da = fetch_one(q, 1h);
    const Delivery db = fetch_one(q, 1min);
    const auto flying = admin(q).list(State::kInFlight).messages;
    ASSERT_EQ(flying.size(), 2u);
    EXPECT_EQ(flying[0].id, b.id);
    EXPECT_EQ(flying[1].id, a.id);
    ASSERT_TRUE(flying[0].lease_deadline);
    EXPECT_EQ(ms(*flying[0].lease_deadline), ms(db.delivered_at()) + 60'000);
    EXPECT_EQ(flying[1].attempts, 1);
    EXPECT_EQ(flying[1].payload, "a");
    EXPECT_EQ(da.id(), a.id);
}

TEST_F(InspectionTest, ListDeadWithPaging) {
    Queue q = queue();
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i) {
        ids.push_back(q.send("d").id);
        leases(q).reject(lease_of(fetch_one(q)), Reject{.error = "e" + std::to_string(i)});
    }
    const MessagePage head = admin(q).list(State::kDead, {.limit = 1});
    ASSERT_EQ(head.messages.size(), 1u);
    EXPECT_EQ(head.messages[0].id, ids[0]);
    const auto page =
        admin(q).list(State::kDead, {.cursor = head.next_cursor, .limit = 3}).messages;
    ASSERT_EQ(page.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(page[i].id, ids[i + 1]);
        EXPECT_EQ(page[i].last_error, "e" + std::to_string(i + 1));
        EXPECT_TRUE(page[i].dead_at);
    }
}

}  // namespace
}  // namespace delayq::test
