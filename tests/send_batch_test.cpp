#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using SendBatchTest = RedisTest;

TEST_F(SendBatchTest, BatchStoresEveryMessageInOrder) {
    Queue q = queue();
    const std::int64_t before = server().time_ms();
    std::vector<Message> batch = {
        {"one", {}},
        {"two", {.delay = 1h}},
        {"three", {.id = "third"}},
        {"four", {.delay = 2h, .max_attempts = 2}},
    };
    const std::vector<SendResult> results = q.send_batch(batch);
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(results[2].id, "third");
    for (const auto& r : results) EXPECT_FALSE(r.duplicate);
    EXPECT_GE(ms(results[1].due), before + 3'600'000);
    EXPECT_EQ(ms(results[3].due) - ms(results[1].due), 3'600'000);
    EXPECT_EQ(admin(q).get(results[3].id)->max_attempts, 2);
    const QueueStats s = admin(q).stats();
    EXPECT_EQ(s.ready, 2u);
    EXPECT_EQ(s.scheduled, 2u);
    EXPECT_EQ(s.totals.sent, 4u);
}

// send.lua builds records by concatenation, with msgpack's string header chosen by length:
// every length class, at its edges, in a batch whose runs of shared options alternate.
TEST_F(SendBatchTest, BatchOfMixedRunsKeepsEveryPayloadAndOption) {
    Queue q = queue();
    const std::vector<std::size_t> lengths = {0, 1, 31, 32, 255, 256, 65535, 65536, 70000};
    std::vector<Message> batch;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        const std::string payload(lengths[i], static_cast<char>('a' + i));
        batch.push_back({payload, {}});
        batch.push_back({payload, {}});
        batch.push_back({payload, {.id = "id-" + std::to_string(i)}});
        batch.push_back(
            {payload,
             {.max_attempts = static_cast<int>(i) + 1, .expire_after = std::chrono::hours(1 + i)}});
    }
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(sent.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        EXPECT_FALSE(sent[i].duplicate) << i;
        const auto info = admin(q).get(sent[i].id);
        ASSERT_TRUE(info) << i;
        EXPECT_EQ(info->payload, batch[i].payload) << i;
        const int max = batch[i].options.max_attempts;
        EXPECT_EQ(info->max_attempts, max == 0 ? 25 : max) << i;
        EXPECT_EQ(info->expire_at.has_value(), batch[i].options.expire_after > 0ms) << i;
    }
    for (std::size_t i = 0; i < lengths.size(); ++i)
        EXPECT_EQ(sent[4 * i + 2].id, "id-" + std::to_string(i));
    const FetchResult f = leases(q).fetch(1000, 30s);
    ASSERT_EQ(f.deliveries.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        EXPECT_EQ(f.deliveries[i].id(), sent[i].id) << i;
        EXPECT_EQ(f.deliveries[i].payload(), batch[i].payload) << i;
    }
}

// The client builds the record of a message with a generated id and no expiry (src/record.cpp):
// max_attempts in every msgpack integer width must read back, in get and in a delivery.
TEST_F(SendBatchTest, RecordsBuiltByTheClientKeepEveryMaxAttemptsWidth) {
    Queue q = queue();
    const std::vector<int> maxes = {1, 127, 128, 255, 256, 65535, 65536, 1'000'000};
    std::vector<Message> batch;
    for (int max : maxes) batch.push_back({"m" + std::to_string(max), {.max_attempts = max}});
    const std::vector<SendResult> sent = q.send_batch(batch);
    ASSERT_EQ(sent.size(), maxes.size());
    for (std::size_t i = 0; i < maxes.size(); ++i) {
        EXPECT_EQ(admin(q).get(sent[i].id)->max_attempts, maxes[i]) << i;
    }
    const FetchResult f = leases(q).fetch(100, 30s);
    ASSERT_EQ(f.deliveries.size(), maxes.size());
    for (std::size_t i = 0; i < maxes.size(); ++i) {
        EXPECT_EQ(f.deliveries[i].max_attempts(), maxes[i]) << i;
        EXPECT_EQ(f.deliveries[i].payload(), batch[i].payload) << i;
    }
}

TEST_F(SendBatchTest, BatchReportsDuplicatesInsideTheBatch) {
    Queue q = queue();
    q.send("old", {.id = "a"});
    std::vector<Message> batch = {{"x", {.id = "a"}}, {"y", {.id = "b"}}, {"z", {.id = "b"}}};
    const std::vector<SendResult> r = q.send_batch(batch);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_TRUE(r[0].duplicate);
    EXPECT_FALSE(r[1].duplicate);
    EXPECT_TRUE(r[2].duplicate);
    EXPECT_EQ(admin(q).get("a")->payload, "old");
    EXPECT_EQ(admin(q).get("b")->payload, "y");
    EXPECT_EQ(admin(q).stats().totals.sent, 2u);
}

TEST_F(SendBatchTest, BatchOfUpToAThousandIsStoredWhole) {
    Queue q = queue();
    std::vector<Message> batch(1000, Message{"m", {.delay = 1h}});
    const std::vector<SendResult> r = q.send_batch(batch);
    EXPECT_EQ(r.size(), 1000u);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1000);
}

TEST_F(SendBatchTest, EmptyBatchSendsNothingAndOversizedBatchIsRefused) {
    Queue q = queue();
    EXPECT_TRUE(q.send_batch({}).empty());
    std::vector<Message> batch(1001, Message{"m", {}});
    EXPECT_THROW(q.send_batch(batch), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(SendBatchTest, BatchWithOneBadMessageWritesNothing) {
    Queue q = queue("q", {.max_payload_bytes = 4});
    std::vector<Message> batch = {{"ok", {}}, {"too long", {}}, {"ok", {}}};
    EXPECT_THROW(q.send_batch(batch), InvalidArgument);
    std::vector<Message> bad_id = {{"ok", {}}, {"ok", {.id = "a{b}"}}};
    // The error names the first bad message, so a caller of a big batch can find it.
    try {
        q.send_batch(bad_id);
        ADD_FAILURE() << "a bad id was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_TRUE(std::string_view(e.what()).starts_with("messages[1]: ")) << e.what();
    }
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(SendBatchTest, MessagesDueInTheSameMillisecondLeaveInSendOrder) {
    Queue q = queue();
    const std::int64_t at_ms = server().time_ms() - 1000;
    const auto at = TimePoint(Duration(at_ms));
    // Caller ids in reverse alphabetical order, so an order by id would be visible.
    std::vector<std::string> sent;
    for (int i = 0; i < 20; ++i) {
        const std::string id = std::string(1, static_cast<char>('z' - i)) + "-single";
        q.send("s", {.at = at, .id = id});
        sent.push_back(id);
    }
    std::vector<Message> batch;
    for (int i = 0; i < 20; ++i) {
        const std::string id = std::string(1, static_cast<char>('z' - i)) + "-batch";
        batch.push_back({"b", {.at = at, .id = id}});
        sent.push_back(id);
    }
    q.send_batch(batch);
    for (int i = 0; i < 10; ++i) sent.push_back(q.send("g", {.at = at}).id);

    std::vector<std::string> got;
    for (int round = 0; round < 10 && got.size() < sent.size(); ++round) {
        for (const auto& d : leases(q).fetch(7, 30s).deliveries) {
            EXPECT_EQ(ms(d.due()), at_ms);
            got.push_back(d.id());
        }
    }
    EXPECT_EQ(got, sent);
}

// Messages that each have their own due time share one run of send.lua, each stating its due
// time or delay: every kind of message in such runs keeps its own due time, in msg or in cold,
// and reports it.
TEST_F(SendBatchTest, MessagesWithTheirOwnDueTimesKeepEach) {
    Queue q = queue();
    q.send("old", {.delay = 5min, .id = "held"});
    const std::int64_t held_due = ms(admin(q).get("held")->due);
    const std::int64_t before = server().time_ms();
    auto at = [&](std::int64_t offset) { return TimePoint(Duration(before + offset)); };
    std::vector<Message> batch = {
        {"g1", {.delay = 5h}},
        {"g2", {.delay = 10min}},
        {"g3", {.delay = 3h}},
        {"g4", {.delay = 1s}},
        {"a1", {.at = at(-500)}},
        {"a2", {.at = at(-900)}},
        {"a3", {.at = at(2 * 3600 * 1000)}},
        {"c1", {.delay = 2h, .id = "c1"}},
        {"c2", {.delay = 20min, .id = "held"}},
        {"c3", {.delay = 30min, .id = "c3"}},
        {"c4", {.delay = 40min, .id = "c3"}},
        {"e1", {.delay = 1min, .expire_after = 24h}},
        {"e2", {.delay = 3h, .expire_after = 24h}},
    };
    const std::vector<SendResult> r = q.send_batch(batch);
    const std::int64_t after = server().time_ms();
    ASSERT_EQ(r.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const SendOptions& o = batch[i].options;
        const auto info = admin(q).get(r[i].id);
        ASSERT_TRUE(info) << i;
        if (r[i].duplicate) continue;
        EXPECT_EQ(ms(r[i].due), ms(info->due)) << i;
        EXPECT_EQ(info->payload, batch[i].payload) << i;
        if (o.at) {
            EXPECT_EQ(ms(r[i].due), ms(*o.at)) << i;
        } else {
            EXPECT_GE(ms(r[i].due), before + o.delay.count()) << i;
            EXPECT_LE(ms(r[i].due), after + o.delay.count()) << i;
        }
        EXPECT_EQ(info->expire_at.has_value(), o.expire_after > 0ms) << i;
    }
    EXPECT_TRUE(r[8].duplicate);
    EXPECT_EQ(ms(r[8].due), held_due);
    EXPECT_EQ(admin(q).get("held")->payload, "old");
    EXPECT_FALSE(r[9].duplicate);
    EXPECT_TRUE(r[10].duplicate);
    EXPECT_EQ(ms(r[10].due), ms(r[9].due));
    EXPECT_EQ(admin(q).get("c3")->payload, "c3");
    EXPECT_EQ(admin(q).stats().totals.sent, 1u + batch.size() - 2);
    // The two due in the past come first, the earlier first.
    const auto f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    EXPECT_EQ(f.deliveries[0].payload(), "a2");
    EXPECT_EQ(f.deliveries[1].payload(), "a1");
}

// A message whose expiry falls before its own absolute due time is the server's to find (its
// clock decides); it refuses the whole batch, as it does a run's shared due time.
TEST_F(SendBatchTest, OneOwnDueTimeAfterItsExpiryRefusesTheBatch) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    auto at = [&](std::int64_t offset) { return TimePoint(Duration(now + offset)); };
    std::vector<Message> batch = {
        {"ok", {.at = at(60'000), .expire_after = 1h}},
        {"late", {.at = at(2 * 3600 * 1000), .expire_after = 1h}},
        {"ok", {.at = at(120'000), .expire_after = 1h}},
    };
    EXPECT_THROW(q.send_batch(batch), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(SendBatchTest, QueuesAreIndependent) {
    Queue a = queue("alpha");
    Queue b = queue("beta");
    a.send("for a", {.id = "same"});
    EXPECT_FALSE(b.send("for b", {.id = "same"}).duplicate);
    const Delivery d = fetch_one(b);
    EXPECT_EQ(d.payload(), "for b");
    EXPECT_EQ(d.queue(), "beta");
    EXPECT_EQ(admin(a).get("same")->payload, "for a");
    EXPECT_EQ(a.name(), "alpha");
}

}  // namespace
}  // namespace delayq::test
