// A queue's history in Redis, sampled by the servers that someone asks for it: a point a
// period, whichever server samples first.
#include <gtest/gtest.h>

#include <set>

#include "routes/history_json.hpp"
#include "runtime/history_recorder.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using namespace delayq::server::routes;
using namespace delayq::server::runtime;

TEST(HistoryJsonTest, APointHasItsTimeCountsTotalsAndLateness) {
    QueueStats s;
    s.now = from_ms(1000);
    s.ready = 3;
    s.totals.sent = 2;
    s.lateness.buckets = {{Duration(5), 4}, {Duration::max(), 1}};
    s.lateness.sum = Duration(70);
    s.lateness.count = 5;
    const std::vector<QueueStats> points = {s};
    const auto j = history_json("q", points, true);
    EXPECT_EQ(j["queue"], "q");
    EXPECT_EQ(j["recording"], true);
    ASSERT_EQ(j["points"].size(), 1U);
    const auto& p = j["points"][0];
    EXPECT_EQ(p["at_ms"], 1000);
    EXPECT_EQ(p["sent"], 2);
    EXPECT_EQ(p["acked"], 0);
    EXPECT_EQ(p["ready"], 3);
    EXPECT_EQ(p["lateness"]["count"], 5);
    EXPECT_EQ(p["lateness"]["sum_ms"], 70);
    EXPECT_EQ(p["lateness"]["buckets"][0]["le_ms"], 5);
    EXPECT_TRUE(p["lateness"]["buckets"][1]["le_ms"].is_null());
}

using HistoryRecorderTest = RedisTest;

// Two servers sample the same queue many times a period: each period gets one point, so the
// history is the same picture whichever server is asked.
TEST_F(HistoryRecorderTest, TwoServersWriteOnePointAPeriod) {
    Client other(server().url());
    HistoryRecorder a(client(), {.interval = std::chrono::milliseconds(10)});
    HistoryRecorder b(other, {.interval = std::chrono::milliseconds(10)});
    Queue q = queue();
    q.send("m");
    ASSERT_TRUE(a.watch("q"));
    ASSERT_TRUE(b.watch("q"));
    const auto first = client().admin("q").history(TimePoint{});
    ASSERT_FALSE(first.empty()) << "a first request records its period's point at once";
    EXPECT_EQ(first.front().totals.sent, 1U);
    // Both sample again and again within the period.
    ASSERT_TRUE(eventually([&] { return a.samples() >= 10 && b.samples() >= 10; }));
    const auto points = client().admin("q").history(TimePoint{});
    std::set<std::int64_t> periods;
    for (const QueueStats& p : points) periods.insert(ms(p.now) / kHistoryPeriod.count());
    EXPECT_EQ(periods.size(), points.size()) << "two points of one period";
    // 20 samples cover far less than two periods: at most one boundary was crossed.
    EXPECT_LE(points.size(), 2U);
}

TEST_F(HistoryRecorderTest, AQueueNobodyAsksAboutIsNoLongerSampled) {
    HistoryRecorder r(client(), {.interval = std::chrono::milliseconds(10),
                                 .keep_watching = std::chrono::milliseconds(50)});
    queue().send("m");
    ASSERT_TRUE(r.watch("q"));
    EXPECT_EQ(r.watched(), 1U);
    ASSERT_TRUE(eventually([&] { return r.watched() == 0; }));
}

// The attack of issue 27: history requests for names that do not exist made the server read
// Redis a second for each, for an hour. Only queues that exist are sampled, at most max_queues.
TEST_F(HistoryRecorderTest, OnlyQueuesThatExistAreSampledAndAtMostMaxQueues) {
    HistoryRecorder r(client(), {.interval = std::chrono::hours(1), .max_queues = 2});
    EXPECT_FALSE(r.watch("ghost"));
    EXPECT_EQ(r.watched(), 0U);
    EXPECT_TRUE(server().keys("dq:{ghost}:*").empty()) << "a ghost writes nothing";
    for (const char* name : {"a", "b", "c"}) queue(name).send("m");
    EXPECT_TRUE(r.watch("a"));
    EXPECT_TRUE(r.watch("b"));
    EXPECT_FALSE(r.watch("c")) << "beyond the cap";
    EXPECT_TRUE(client().admin("c").history(TimePoint{}).empty());
    EXPECT_TRUE(r.watch("a")) << "a queue sampled already stays so at the cap";
    EXPECT_EQ(r.watched(), 2U);
    EXPECT_EQ(client().admin("a").history(TimePoint{}).size(), 1U);
}

}  // namespace
}  // namespace delayq::test
