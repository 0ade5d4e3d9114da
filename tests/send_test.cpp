#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using SendTest = RedisTest;

TEST_F(SendTest, DelayIsCountedFromTheRedisClock) {
    Queue q = queue();
    const std::int64_t before = server().time_ms();
    const SendResult r = q.send("hello", {.delay = 5000ms});
    const std::int64_t after = server().time_ms();
    EXPECT_FALSE(r.duplicate);
    EXPECT_FALSE(r.id.empty());
    EXPECT_GE(ms(r.due), before + 5000);
    EXPECT_LE(ms(r.due), after + 5000);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

TEST_F(SendTest, AbsoluteTimeIsTheDueTime) {
    Queue q = queue();
    const std::int64_t at = server().time_ms() + 3'600'000;
    const SendResult r = q.send("x", {.at = TimePoint(Duration(at))});
    EXPECT_EQ(ms(r.due), at);
    const auto info = admin(q).get(r.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(ms(info->due), at);
    EXPECT_EQ(info->state, State::kScheduled);
}

TEST_F(SendTest, AbsoluteTimeInThePastIsReadyAtOnce) {
    Queue q = queue();
    const std::int64_t at = server().time_ms() - 60'000;
    const SendResult r = q.send("x", {.at = TimePoint(Duration(at))});
    EXPECT_EQ(ms(r.due), at);
    const auto info = admin(q).get(r.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kReady);
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 1u);
    EXPECT_EQ(f.deliveries[0].id(), r.id);
    EXPECT_EQ(ms(f.deliveries[0].due()), at);
}

TEST_F(SendTest, NotDeliveredBeforeDue) {
    Queue q = queue();
    const SendResult r = q.send("later", {.delay = 400ms});
    const FetchResult early = leases(q).fetch(10, 30s);
    if (ms(early.now) < ms(r.due)) {
        EXPECT_TRUE(early.deliveries.empty());
        ASSERT_TRUE(early.next);
        EXPECT_EQ(ms(*early.next), ms(r.due));
    }
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), r.id);
    EXPECT_GE(ms(d.delivered_at()), ms(d.due()));
    EXPECT_EQ(ms(d.due()), ms(r.due));
    EXPECT_GE(d.lateness(), 0ms);
}

TEST_F(SendTest, CallerIdIsAnIdempotencyKey) {
    Queue q = queue();
    const SendResult first = q.send("original", {.delay = 1h, .id = "order-17"});
    EXPECT_EQ(first.id, "order-17");
    EXPECT_FALSE(first.duplicate);

    const SendResult second =
        q.send("changed", {.delay = 5ms, .id = "order-17", .max_attempts = 9});
    EXPECT_EQ(second.id, "order-17");
    EXPECT_TRUE(second.duplicate);
    EXPECT_EQ(ms(second.due), ms(first.due));

    const auto info = admin(q).get("order-17");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->payload, "original");
    EXPECT_EQ(ms(info->due), ms(first.due));
    EXPECT_NE(info->max_attempts, 9);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
    EXPECT_EQ(admin(q).stats().totals.sent, 1u);
}

TEST_F(SendTest, IdCanBeReusedOnceTheMessageIsGone) {
    Queue q = queue();
    q.send("a", {.id = "k"});
    const Delivery d = fetch_one(q);
    ASSERT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    const SendResult again = q.send("b", {.id = "k"});
    EXPECT_FALSE(again.duplicate);
    EXPECT_EQ(admin(q).get("k")->payload, "b");
}

TEST_F(SendTest, DuplicateOfAnInFlightMessageChangesNothing) {
    Queue q = queue();
    q.send("a", {.id = "k"});
    const Delivery d = fetch_one(q);
    const SendResult again = q.send("b", {.id = "k"});
    EXPECT_TRUE(again.duplicate);
    const auto info = admin(q).get("k");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->payload, "a");
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

TEST_F(SendTest, GeneratedIdsAreUniqueAndSortInSendOrder) {
    Queue q = queue();
    std::vector<std::string> ids;
    for (int i = 0; i < 300; ++i) ids.push_back(q.send("m", {.delay = 1h}).id);
    std::vector<Message> batch(300, Message{"b", {.delay = 1h}});
    for (const auto& r : q.send_batch(batch)) ids.push_back(r.id);
    for (int i = 0; i < 300; ++i) ids.push_back(q.send("m", {.delay = 1h}).id);

    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size());
}

// The ids of a batch are consecutive numbers, also across the blocks of 256 in which send.lua
// formats them.
TEST_F(SendTest, BatchIdsAreConsecutiveFourteenDigitHexNumbers) {
    Queue q = queue();
    std::vector<Message> batch(1000, Message{"b", {.delay = 1h}});
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(sent.size(), batch.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
        ASSERT_EQ(sent[i].id.size(), 14u) << sent[i].id;
        ASSERT_EQ(sent[i].id.find_first_not_of("0123456789abcdef"), std::string::npos);
        if (i > 0) {
            EXPECT_EQ(std::stoull(sent[i].id, nullptr, 16),
                      std::stoull(sent[i - 1].id, nullptr, 16) + 1)
                << sent[i - 1].id << " then " << sent[i].id;
        }
    }
}

// Generated ids are 14 lowercase hex digits; a caller id of that form could be handed out later
// as a generated one, so it is refused, whole batch and all.
TEST_F(SendTest, CallerIdsOfTheGeneratedFormAreRefusedAndNothingWritten) {
    Queue q = queue();
    EXPECT_THROW(q.send("x", {.id = "0123456789abcd"}), InvalidArgument);
    std::vector<Message> batch = {{"ok", {}}, {"ok", {.id = "00000000000000"}}};
    EXPECT_THROW(q.send_batch(batch), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
    // Other lengths, other letters and capitals are ordinary ids.
    for (const std::string id :
         {"0123456789abc", "0123456789abcde", "0123456789ABCD", "0123456789abcg"}) {
        const SendResult r = q.send("by hand", {.delay = 1h, .id = id});
        EXPECT_EQ(r.id, id);
        EXPECT_FALSE(r.duplicate);
        EXPECT_EQ(admin(q).get(id)->payload, "by hand");
    }
}

TEST_F(SendTest, GeneratedIdsKeepSortingAfterTheCounterIsLost) {
    Queue q = queue();
    const std::string before = q.send("a", {.delay = 1h}).id;
    ASSERT_EQ(server().integer({"HDEL", queue_key("q", "settings"), "seq"}), 1);
    const std::string after = q.send("b", {.delay = 1h}).id;
    EXPECT_GT(after, before);
    EXPECT_EQ(admin(q).get(before)->payload, "a");
    EXPECT_EQ(admin(q).get(after)->payload, "b");
}

TEST_F(SendTest, PayloadsAreArbitraryBytes) {
    Queue q = queue();
    std::string all_bytes;
    for (int c = 0; c < 256; ++c) all_bytes.push_back(static_cast<char>(c));
    const std::vector<std::string> payloads = {"", std::string("a\0b\0", 4),
                                               "\xff\xfe\xc3\x28 not utf-8 \xed\xa0\x80", all_bytes,
                                               std::string(100'000, '\0')};
    std::vector<std::string> ids;
    for (const auto& p : payloads) ids.push_back(q.send(p).id);
    for (std::size_t i = 0; i < payloads.size(); ++i) {
        const auto info = admin(q).get(ids[i]);
        ASSERT_TRUE(info);
        EXPECT_EQ(info->payload, payloads[i]) << "payload " << i;
    }
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), payloads.size());
    for (std::size_t i = 0; i < payloads.size(); ++i) {
        EXPECT_EQ(f.deliveries[i].id(), ids[i]);
        EXPECT_EQ(f.deliveries[i].payload(), payloads[i]) << "payload " << i;
    }
}

TEST_F(SendTest, PayloadUpToTheDefaultLimitIsAccepted) {
    Queue q = queue();
    EXPECT_EQ(QueueOptions{}.max_payload_bytes, 1024u * 1024u);
    const std::string payload(1024 * 1024, 'p');
    const SendResult r = q.send(payload);
    EXPECT_EQ(admin(q).get(r.id)->payload.size(), payload.size());
}

TEST_F(SendTest, PayloadOverTheDefaultLimitIsRejectedAndNothingWritten) {
    Queue q = queue();
    EXPECT_THROW(q.send(std::string(1024 * 1024 + 1, 'p')), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(SendTest, PayloadLimitIsConfigurable) {
    Queue q = queue("q", {.max_payload_bytes = 10});
    EXPECT_NO_THROW(q.send("0123456789"));
    EXPECT_THROW(q.send("0123456789a"), InvalidArgument);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

TEST_F(SendTest, MaxAttemptsDefaultsToTheQueueSetting) {
    Queue q = queue();
    admin(q).update_settings({.max_attempts = 3});
    const SendResult a = q.send("a");
    const SendResult b = q.send("b", {.max_attempts = 7});
    EXPECT_EQ(admin(q).get(a.id)->max_attempts, 3);
    EXPECT_EQ(admin(q).get(b.id)->max_attempts, 7);
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    EXPECT_EQ(f.deliveries[0].max_attempts(), 3);
    EXPECT_EQ(f.deliveries[1].max_attempts(), 7);
    EXPECT_EQ(f.deliveries[0].attempt(), 1);
}

TEST_F(SendTest, DuplicateReportsTheDueTimeTheMessageHasNow) {
    Queue q = queue();
    q.send("a", {.delay = 1h, .id = "k"});
    const RescheduleResult moved = q.reschedule("k", 2h);
    ASSERT_EQ(moved.status, RescheduleStatus::kRescheduled);
    EXPECT_EQ(ms(q.send("b", {.id = "k"}).due), ms(moved.due));

    q.reschedule("k", 0ms);
    const Delivery d = fetch_one(q);
    EXPECT_EQ(ms(q.send("b", {.id = "k"}).due), ms(d.due()));

    const LeaseResult retry = leases(q).nack(lease_of(d), Nack{.delay = 1h});
    ASSERT_EQ(retry.status, LeaseStatus::kRetrying);
    EXPECT_EQ(ms(q.send("b", {.id = "k"}).due), ms(retry.at));
}

// A record that was never delivered is stored in a short shape (see src/lua/lib/record.lua): every
// shape must give back exactly what was sent, before and after a delivery.
TEST_F(SendTest, EveryRecordShapeRoundTrips) {
    Queue q = queue();
    const std::string binary("\0\xff\x01 {}:\n", 8);
    struct Case {
        std::string payload;
        SendOptions options;
    };
    const std::vector<Case> cases{
        {"plain", {.delay = 1h}},
        {"", {.delay = 1h, .max_attempts = 3}},
        {binary, {.delay = 1h, .id = "caller"}},
        {"expiring", {.delay = 1h, .expire_after = 2h}},
        {"both", {.delay = 1h, .id = "caller-2", .max_attempts = 1000, .expire_after = 3h}},
    };
    for (const Case& c : cases) {
        const SendResult sent = q.send(c.payload, c.options);
        const RescheduleResult moved = q.reschedule(sent.id, 30min);
        ASSERT_EQ(moved.status, RescheduleStatus::kRescheduled);
        const auto info = admin(q).get(sent.id);
        ASSERT_TRUE(info);
        EXPECT_EQ(info->payload, c.payload);
        EXPECT_EQ(info->attempts, 0);
        const int max_attempts = c.options.max_attempts == 0 ? 25 : c.options.max_attempts;
        EXPECT_EQ(info->max_attempts, max_attempts);
        EXPECT_EQ(info->expire_at.has_value(), c.options.expire_after > 0ms);
        EXPECT_EQ(ms(info->due), ms(moved.due));
        const auto page = admin(q).list(State::kScheduled, {}).messages;
        ASSERT_FALSE(page.empty());
        EXPECT_EQ(ms(page.back().due), ms(moved.due));

        q.reschedule(sent.id, 0ms);
        const Delivery d = fetch_one(q);
        EXPECT_EQ(d.id(), sent.id);
        EXPECT_EQ(d.payload(), c.payload);
        EXPECT_EQ(d.attempt(), 1);
        EXPECT_EQ(d.max_attempts(), max_attempts);
        ASSERT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
    }
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(SendTest, ExpiryIsRecorded) {
    Queue q = queue();
    const std::int64_t before = server().time_ms();
    const SendResult r = q.send("x", {.delay = 1s, .expire_after = 10s});
    const std::int64_t after = server().time_ms();
    const auto info = admin(q).get(r.id);
    ASSERT_TRUE(info);
    ASSERT_TRUE(info->expire_at);
    EXPECT_GE(ms(*info->expire_at), before + 10'000);
    EXPECT_LE(ms(*info->expire_at), after + 10'000);
    EXPECT_FALSE(admin(q).get(q.send("y").id)->expire_at);
}

}  // namespace
}  // namespace delayq::test
