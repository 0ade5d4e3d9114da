// /metrics' text: the Prometheus format, and the per-queue families from a real queue's stats.
#include <gtest/gtest.h>

#include "metrics/queue_metrics.hpp"
#include "metrics/text_format.hpp"
#include "promtool.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using server::escape_label_value;
using server::format_value;
using server::QueueSample;
using server::render_queue_metrics;
using server::TextFormat;

TEST(TextFormatTest, ValuesAndLabelsAreWrittenAsTheFormatReadsThem) {
    EXPECT_EQ(format_value(0), "0");
    EXPECT_EQ(format_value(42), "42");
    EXPECT_EQ(format_value(0.001), "0.001");
    EXPECT_EQ(format_value(1e18), "1e+18");
    EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    TextFormat t;
    t.family("x_total", "counter", "Things.");
    t.sample("x_total", {{"queue", "q\"1"}}, 3);
    EXPECT_EQ(t.text(),
              "# HELP x_total Things.\n# TYPE x_total counter\nx_total{queue=\"q\\\"1\"} 3\n");
}

using QueueMetricsTest = RedisTest;

// Two real queues, one with deliveries: every family holds both queues' samples, the lateness
// buckets are cumulative seconds, and promtool accepts the text.
TEST_F(QueueMetricsTest, RealQueuesRenderAsValidPrometheusText) {
    Queue a = queue("orders");
    Queue b = queue("with\"quote");
    const std::int64_t now = server().time_ms();
    for (int i = 0; i < 3; ++i) a.send("x", {.at = from_ms(now - 3'000)});
    a.send("later", {.delay = 1h});
    b.send("y", {.delay = 1h});
    ASSERT_EQ(leases(a).fetch(10, 30s).deliveries.size(), 3u);

    const std::vector<QueueSample> samples = {{"orders", admin(a).stats()},
                                              {"with\"quote", admin(b).stats()}};
    TextFormat out;
    render_queue_metrics(out, samples);
    const std::string& text = out.text();
    EXPECT_NE(text.find("delayq_messages{queue=\"orders\",state=\"in_flight\"} 3\n"),
              std::string::npos);
    EXPECT_NE(text.find("delayq_messages{queue=\"orders\",state=\"scheduled\"} 1\n"),
              std::string::npos);
    EXPECT_NE(text.find("delayq_sent_total{queue=\"with\\\"quote\"} 1\n"), std::string::npos);
    EXPECT_NE(text.find("delayq_delivered_total{queue=\"orders\"} 3\n"), std::string::npos);
    EXPECT_NE(text.find("delayq_delivery_lateness_seconds_bucket{queue=\"orders\",le=\"2.5\"} 0\n"),
              std::string::npos);
    EXPECT_NE(text.find("delayq_delivery_lateness_seconds_bucket{queue=\"orders\",le=\"5\"} 3\n"),
              std::string::npos);
    EXPECT_NE(
        text.find("delayq_delivery_lateness_seconds_bucket{queue=\"orders\",le=\"+Inf\"} 3\n"),
        std::string::npos);
    EXPECT_NE(text.find("delayq_delivery_lateness_seconds_count{queue=\"orders\"} 3\n"),
              std::string::npos);
    // One HELP per family, whatever the number of queues.
    std::size_t helps = 0;
    for (std::size_t at = 0; (at = text.find("# HELP delayq_messages ", at)) != std::string::npos;
         ++at) {
        ++helps;
    }
    EXPECT_EQ(helps, 1u);

    const auto [status, said] = promtool_check_metrics(text);
    EXPECT_EQ(status, 0) << said;
    // promtool itself can fail: a family split in two is refused.
    const auto [bad_status, bad_said] = promtool_check_metrics(
        text + "# HELP delayq_messages again\n# TYPE delayq_messages gauge\n");
    EXPECT_NE(bad_status, 0) << bad_said;
}

}  // namespace
}  // namespace delayq::test
