// Scenario 1: a consumer process is killed with SIGKILL while its handlers run. Its messages
// come back once their leases run out, with the attempt count up by one; nothing is lost.
#include <signal.h>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultKillConsumer : public FaultTest {};

TEST_F(FaultKillConsumer, MessagesInHandlersAreRedeliveredWithTheNextAttempt) {
    constexpr long long kVisibilityMs = 1000;
    start_producer("p1", {.count = 6});
    // Handlers longer than the lease: only the consumer's lease extension keeps them leased.
    // Timeouts well above the machine's stalls: a fetch whose reply is lost still counts its
    // attempt, and this scenario counts attempts.
    start_consumer("c1", {.visibility_ms = kVisibilityMs,
                          .handler_sleep_ms = 5000,
                          .concurrency = 2,
                          .command_timeout_ms = 3000});
    ASSERT_TRUE(await_history([](const History& h) { return h.deliveries.size() == 2; }));
    kill_worker("c1");
    const std::vector<DeliveryEvent> interrupted = history().deliveries;

    start_consumer("c2",
                   {.visibility_ms = kVisibilityMs, .concurrency = 2, .command_timeout_ms = 3000});
    await_all_handled();
    const Report report = finish();

    EXPECT_EQ(report.sends_acknowledged, 6u);
    EXPECT_EQ(report.redeliveries, interrupted.size());
    EXPECT_TRUE(report.duplicates.empty());
    const History h = history();
    for (const auto& first : interrupted) {
        EXPECT_EQ(first.process, "c1");
        int again = 0;
        for (const auto& d : h.deliveries) {
            if (d.id != first.id || d.token == first.token) continue;
            ++again;
            EXPECT_EQ(d.process, "c2");
            EXPECT_EQ(d.attempt, first.attempt + 1);
            // Not before the lease the killed consumer held had run out.
            EXPECT_GE(d.delivered_at_ms, first.delivered_at_ms + kVisibilityMs);
        }
        EXPECT_EQ(again, 1) << first.id;
    }
}

}  // namespace
}  // namespace delayq::fault
