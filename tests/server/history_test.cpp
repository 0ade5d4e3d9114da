// The one-second history of a queue's totals: a ring of the last hour, recorded for the queues
// someone watches.
#include "runtime/history.hpp"

#include <gtest/gtest.h>

#include "routes/history_json.hpp"
#include "runtime/history_recorder.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using namespace delayq::server::routes;
using namespace delayq::server::runtime;

QueueStats totals_at(std::int64_t at_ms, std::uint64_t sent) {
    QueueStats s;
    s.now = from_ms(at_ms);
    s.totals.sent = sent;
    return s;
}

TEST(HistoryTest, KeepsTheLastPointsOldestFirst) {
    History h(3);
    EXPECT_TRUE(h.points("q").empty());
    for (std::int64_t i = 1; i <= 5; ++i)
        h.record("q", totals_at(i * 1000, static_cast<std::uint64_t>(i)));
    h.record("other", totals_at(9000, 9));
    const auto points = h.points("q");
    ASSERT_EQ(points.size(), 3U);
    EXPECT_EQ(ms(points[0].at), 3000);
    EXPECT_EQ(points[0].totals.sent, 3U);
    EXPECT_EQ(ms(points[2].at), 5000);
    EXPECT_EQ(h.points("other").size(), 1U);
    h.forget("q");
    EXPECT_TRUE(h.points("q").empty());
    EXPECT_THROW(History(0), InvalidArgument);
}

TEST(HistoryTest, RendersAsJson) {
    History h;
    h.record("q", totals_at(1000, 2));
    const auto points = h.points("q");
    const auto j = history_json("q", points, true);
    EXPECT_EQ(j["queue"], "q");
    EXPECT_EQ(j["recording"], true);
    ASSERT_EQ(j["points"].size(), 1U);
    EXPECT_EQ(j["points"][0]["at_ms"], 1000);
    EXPECT_EQ(j["points"][0]["sent"], 2);
    EXPECT_EQ(j["points"][0]["acked"], 0);
}

using HistoryRecorderTest = RedisTest;

TEST_F(HistoryRecorderTest, AWatchedQueueIsRecordedEveryIntervalAndOthersAreNot) {
    History h;
    HistoryRecorder r(client(), h, {.interval = std::chrono::milliseconds(20)});
    Queue q = queue();
    q.send("m");
    r.watch("q");
    ASSERT_EQ(h.points("q").size(), 1U);  // at once
    EXPECT_EQ(h.points("q")[0].totals.sent, 1U);
    q.send("m");
    ASSERT_TRUE(eventually([&] {
        const auto p = h.points("q");
        return p.size() >= 3 && p.back().totals.sent == 2;
    }));
    const auto p = h.points("q");
    for (std::size_t i = 1; i < p.size(); ++i) EXPECT_GE(p[i].at, p[i - 1].at);
    EXPECT_TRUE(h.points("unwatched").empty());
}

TEST_F(HistoryRecorderTest, AQueueNobodyAsksAboutIsForgotten) {
    History h;
    HistoryRecorder r(client(), h,
                      {.interval = std::chrono::milliseconds(10),
                       .keep_watching = std::chrono::milliseconds(50)});
    queue().send("m");
    r.watch("q");
    ASSERT_FALSE(h.points("q").empty());
    ASSERT_TRUE(eventually([&] { return h.points("q").empty(); }));
}

// The attack of issue 27: history requests for names that do not exist made the server read
// Redis a second for each, for an hour. Only queues that exist are recorded, at most max_queues.
TEST_F(HistoryRecorderTest, OnlyQueuesThatExistAreRecordedAndAtMostMaxQueues) {
    History h;
    HistoryRecorder r(client(), h, {.interval = std::chrono::hours(1), .max_queues = 2});
    EXPECT_FALSE(r.watch("ghost"));
    EXPECT_EQ(r.watched(), 0U);
    EXPECT_TRUE(h.points("ghost").empty());
    for (const char* name : {"a", "b", "c"}) queue(name).send("m");
    EXPECT_TRUE(r.watch("a"));
    EXPECT_TRUE(r.watch("b"));
    EXPECT_FALSE(r.watch("c")) << "beyond the cap";
    EXPECT_TRUE(h.points("c").empty());
    EXPECT_TRUE(r.watch("a")) << "a queue recorded already stays so at the cap";
    EXPECT_EQ(r.watched(), 2U);
    EXPECT_EQ(h.points("a").size(), 1U);
}

}  // namespace
}  // namespace delayq::test
