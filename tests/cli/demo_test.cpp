// delayq demo: the order-timeout scenario runs, checks itself, and cleans up after itself.
#include <gtest/gtest.h>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using DemoTest = CliTest;

TEST_F(DemoTest, RunsTheOrderTimeoutScenarioAndLeavesNoMessages) {
    const CliResult r = cli({"demo", "--orders", "10", "--seed", "7"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
    for (const char* line :
         {"messages sent (orders placed)         10", "early deliveries                      none",
          "lost                                  none", "p50", "p99", "max"}) {
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    }
    EXPECT_NE(r.out.find("placed"), std::string::npos);
    EXPECT_NE(r.out.find("timer cancelled"), std::string::npos);
    EXPECT_NE(r.out.find("order closed"), std::string::npos);
    EXPECT_NE(r.out.find("ms late"), std::string::npos);
    // Nothing left behind: no message records, pending, in-flight or dead entries.
    for (const char* part : {"msg", "pending", "inflight", "dead"}) {
        EXPECT_TRUE(redis_.keys(std::string("dq:*:") + part).empty()) << part;
    }
}

TEST_F(DemoTest, EachRunUsesAFreshQueue) {
    const CliResult a = cli({"demo", "--orders", "2"});
    const CliResult b = cli({"demo", "--orders", "2"});
    ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
    auto queue_of = [](const std::string& out) {
        const auto at = out.find("demo-orders-");
        return out.substr(at, out.find(' ', at) - at);
    };
    EXPECT_NE(queue_of(a.out), queue_of(b.out));
}

}  // namespace
}  // namespace delayq::test
