// /metrics beyond the queues' families: the scrape cache (Redis read at most once per interval
// however many scrapers), request durations, build info and Redis figures, checked by promtool.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "metrics/exposition.hpp"
#include "metrics/request_metrics.hpp"
#include "metrics/scrape_cache.hpp"
#include "metrics/text_format.hpp"
#include "promtool.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using ScrapeCacheTest = RedisTest;

long long script_calls(const RedisServer& server) {
    const std::string info = server.command({"INFO", "commandstats"}).str;
    long long total = 0;
    std::size_t at = 0;
    while ((at = info.find("cmdstat_", at)) != std::string::npos) {
        const auto end = info.find('\n', at);
        const std::string line = info.substr(at, end - at);
        at = end;
        if (line.starts_with("cmdstat_info:")) continue;
        total += std::stoll(line.substr(line.find("calls=") + 6));
    }
    return total;
}

TEST_F(ScrapeCacheTest, ManyScrapersWithinAnIntervalShareOneRead) {
    queue("a").send("m");
    queue("b").send("m", {.delay = std::chrono::hours(1)});
    ScrapeCache cache(client(), std::chrono::hours(1));
    const auto first = cache.get();
    ASSERT_TRUE(first->redis_up);
    ASSERT_EQ(first->queues.size(), 2U);
    EXPECT_EQ(first->queues[0].queue, "a");
    EXPECT_EQ(first->queues[0].stats.ready, 1U);
    EXPECT_EQ(first->queues[1].stats.scheduled, 1U);
    const long long after_first = script_calls(server());
    std::vector<std::thread> scrapers;
    std::atomic<int> same{0};
    for (int i = 0; i < 8; ++i) {
        scrapers.emplace_back([&] {
            for (int k = 0; k < 10; ++k) same += cache.get() == first ? 1 : 0;
        });
    }
    for (auto& t : scrapers) t.join();
    EXPECT_EQ(same.load(), 80);
    EXPECT_EQ(cache.reads(), 1U);
    EXPECT_EQ(script_calls(server()), after_first);
}

TEST_F(ScrapeCacheTest, AStaleScrapeIsReadAgain) {
    ScrapeCache cache(client(), Duration(0));
    const auto first = cache.get();
    queue("a").send("m");
    const auto second = cache.get();
    EXPECT_EQ(cache.reads(), 2U);
    EXPECT_TRUE(first->queues.empty());
    ASSERT_EQ(second->queues.size(), 1U);
    EXPECT_EQ(second->queues[0].stats.ready, 1U);
}

TEST_F(ScrapeCacheTest, RedisDownIsAFigureNotAnError) {
    ScrapeCache cache(client(), Duration(0));
    server().kill();
    const auto s = cache.get();
    EXPECT_FALSE(s->redis_up);
    EXPECT_TRUE(s->queues.empty());
    const std::string text = render_metrics(*s, RequestMetrics{}, {});
    EXPECT_NE(text.find("\ndelayq_redis_up 0\n"), std::string::npos) << text;
    // Unknown while Redis is down, so absent rather than a round trip of 0.
    EXPECT_FALSE(s->redis_roundtrip);
    EXPECT_EQ(text.find("delayq_redis_roundtrip_seconds"), std::string::npos) << text;
}

TEST(RequestMetricsTest, DurationsAreCountedByRouteAndStatusCumulatively) {
    RequestMetrics m;
    m.observe("POST", "/v1/queues/{queue}/messages", 201, std::chrono::microseconds(300));
    m.observe("POST", "/v1/queues/{queue}/messages", 201, std::chrono::milliseconds(3));
    m.observe("POST", "/v1/queues/{queue}/leases", 200, std::chrono::seconds(90));
    TextFormat out;
    m.render(out);
    const std::string& t = out.text();
    const std::string send =
        R"(delayq_http_request_duration_seconds_bucket{method="POST",route="/v1/queues/{queue}/messages",status="201",le=)";
    EXPECT_NE(t.find(send + "\"5e-04\"} 1\n"), std::string::npos) << t;
    EXPECT_NE(t.find(send + "\"0.0025\"} 1\n"), std::string::npos) << t;
    EXPECT_NE(t.find(send + "\"0.005\"} 2\n"), std::string::npos) << t;
    EXPECT_NE(t.find(send + "\"+Inf\"} 2\n"), std::string::npos) << t;
    const std::string poll =
        R"(delayq_http_request_duration_seconds_bucket{method="POST",route="/v1/queues/{queue}/leases",status="200",le=)";
    EXPECT_NE(t.find(poll + "\"60\"} 0\n"), std::string::npos) << t;
    EXPECT_NE(t.find(poll + "\"+Inf\"} 1\n"), std::string::npos) << t;
    EXPECT_NE(
        t.find(
            R"(delayq_http_request_duration_seconds_count{method="POST",route="/v1/queues/{queue}/leases",status="200"} 1)"),
        std::string::npos);
}

TEST(RequestMetricsTest, LongPollWaitsAreAHistogramOfTheirOwn) {
    RequestMetrics m;
    m.observe("POST", "/v1/queues/{queue}/leases", 200, std::chrono::microseconds(300));
    m.observe_wait("/v1/queues/{queue}/leases", std::chrono::seconds(20));
    TextFormat out;
    m.render(out);
    const std::string& t = out.text();
    const std::string wait =
        R"(delayq_http_long_poll_wait_seconds_bucket{route="/v1/queues/{queue}/leases",le=)";
    EXPECT_NE(t.find(wait + "\"10\"} 0\n"), std::string::npos) << t;
    EXPECT_NE(t.find(wait + "\"30\"} 1\n"), std::string::npos) << t;
    const std::string took =
        R"(delayq_http_request_duration_seconds_bucket{method="POST",route="/v1/queues/{queue}/leases",status="200",le=)";
    EXPECT_NE(t.find(took + "\"5e-04\"} 1\n"), std::string::npos) << t;
}

TEST_F(ScrapeCacheTest, TheWholeTextPassesPromtool) {
    Queue q = queue("orders");
    q.send("m");
    fetch_one(q);
    queue("billing\"eu").send("m");
    ScrapeCache cache(client(), Duration(0));
    RequestMetrics requests;
    requests.observe("GET", "/metrics", 200, std::chrono::milliseconds(1));
    requests.observe("POST", "/v1/queues/{queue}/ack", 400, std::chrono::microseconds(80));
    const std::string text = render_metrics(
        *cache.get(), requests,
        {.worker_refused_token_share = 2, .long_polls_waiting = 3, .long_poll_fetches = 17});
    const auto [status, said] = promtool_check_metrics(text);
    EXPECT_EQ(status, 0) << said << "\n" << text;
    EXPECT_TRUE(said.empty()) << said;  // no lint complaints either
    EXPECT_NE(text.find("delayq_build_info{version=\"" + std::string(kVersion) + "\"} 1"),
              std::string::npos);
    EXPECT_NE(text.find("\ndelayq_redis_up 1\n"), std::string::npos);
    EXPECT_NE(text.find("\ndelayq_http_long_polls 3\n"), std::string::npos);
    EXPECT_NE(text.find("\ndelayq_http_worker_tasks_refused_total{reason=\"token_share\"} 2\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("delayq_messages{queue=\"orders\",state=\"in_flight\"} 1"),
              std::string::npos);
}

}  // namespace
}  // namespace delayq::test
