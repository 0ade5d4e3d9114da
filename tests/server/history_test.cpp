// A queue's history in Redis, sampled by the servers that someone asks for it: a point a
// period, whichever server samples first.
#include <gtest/gtest.h>

#include <set>

#include "api/history_json.hpp"
#include "api/span_figures.hpp"
#include "runtime/history_recorder.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
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

// A snapshot at `at_ms` with `sent` sent and cumulative lateness buckets of 1, 10 ms and +Inf.
QueueStats snapshot(std::int64_t at_ms, std::uint64_t sent, std::uint64_t within_1,
                    std::uint64_t within_10, std::uint64_t all) {
    QueueStats s;
    s.now = from_ms(at_ms);
    s.totals.sent = sent;
    s.totals.delivered = all;
    s.lateness.buckets = {
        {Duration(1), within_1}, {Duration(10), within_10}, {Duration::max(), all}};
    s.lateness.count = all;
    return s;
}

TEST(SpanFiguresTest, RatesAndQuantilesComeFromTheDifferences) {
    // Over 10 s: 50 sent; 100 deliveries, of which 60 within 1 ms, 99 within 10 ms, 1 later.
    const auto span =
        span_figures(snapshot(1000, 10, 40, 400, 500), snapshot(11000, 60, 100, 499, 600));
    ASSERT_TRUE(span);
    EXPECT_DOUBLE_EQ(span->sent_per_s, 5.0);
    EXPECT_DOUBLE_EQ(span->delivered_per_s, 10.0);
    EXPECT_EQ(span->deliveries, 100u);
    EXPECT_EQ(span->lateness_p50, Duration(1)) << "the 50th of 100 is within 1 ms";
    EXPECT_EQ(span->lateness_p99, Duration(10)) << "the 99th is within 10 ms";
    const auto j = span_json(*span);
    EXPECT_EQ(j["from_ms"], 1000);
    EXPECT_EQ(j["to_ms"], 11000);
    EXPECT_EQ(j["lateness_p50_le_ms"], 1);
    EXPECT_EQ(j["lateness_p99_le_ms"], 10);
}

TEST(SpanFiguresTest, PastTheLastBoundNoDeliveriesAndNoTimeAreSaid) {
    // Two deliveries, both past 10 ms: the quantiles are past the last bound, null in JSON.
    const auto late = span_figures(snapshot(0, 0, 5, 5, 5), snapshot(1000, 0, 5, 5, 7));
    ASSERT_TRUE(late);
    EXPECT_EQ(late->lateness_p50, Duration::max());
    EXPECT_TRUE(span_json(*late)["lateness_p50_le_ms"].is_null());
    EXPECT_EQ(span_json(*late)["deliveries"], 2);
    const auto none = span_figures(snapshot(0, 0, 5, 5, 5), snapshot(1000, 0, 5, 5, 5));
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->lateness_p99);
    EXPECT_EQ(span_json(*none)["deliveries"], 0);
    EXPECT_FALSE(span_figures(snapshot(1000, 0, 0, 0, 0), snapshot(1000, 1, 0, 0, 0)));
    // A queue deleted and made again: its totals went down, which counts as nothing done.
    const auto reset = span_figures(snapshot(0, 100, 5, 5, 5), snapshot(1000, 3, 0, 0, 0));
    ASSERT_TRUE(reset);
    EXPECT_EQ(reset->sent_per_s, 0.0);
    EXPECT_EQ(reset->deliveries, 0u);
}

TEST(HistoryJsonTest, PeriodsAndTheHourComeWithThePoints) {
    const std::vector<QueueStats> points = {snapshot(0, 0, 0, 0, 0), snapshot(10000, 10, 0, 0, 0),
                                            snapshot(20000, 30, 0, 0, 0)};
    const auto j = history_json("q", points, false);
    ASSERT_EQ(j["periods"].size(), 2u);
    EXPECT_EQ(j["periods"][0]["sent_per_s"], 1.0);
    EXPECT_EQ(j["periods"][1]["sent_per_s"], 2.0);
    EXPECT_EQ(j["periods"][1]["from_ms"], 10000);
    EXPECT_EQ(j["hour"]["sent_per_s"], 1.5);
    EXPECT_TRUE(history_json("q", {}, false)["hour"].is_null());
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
