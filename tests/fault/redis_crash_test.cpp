// Scenario 3: redis-server is killed with SIGKILL and restarted (appendonly yes, appendfsync
// always) while producers and consumers run. Every acknowledged send survives and is handled;
// producers get errors, not hangs, while it is down; consumers reconnect by themselves.
#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultRedisCrash : public FaultTest {};

TEST_F(FaultRedisCrash, AcknowledgedSendsSurviveKillAndRestart) {
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 300, .delay_max_ms = 600, .interval_ms = 10};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 10, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);

    const std::int64_t restarted_at = kill_and_restart_redis(2);

    await_all_handled();
    const Report report = finish();
    EXPECT_GT(report.sends_unknown, 0u);
    // Both consumers went on by themselves after the last restart.
    for (const std::string name : {"c1", "c2"}) {
        bool after = false;
        for (const auto& d : history().deliveries) {
            after = after || (d.process == name && d.delivered_at_ms > restarted_at);
        }
        EXPECT_TRUE(after) << name << " delivered nothing after the restart";
    }
}

}  // namespace
}  // namespace delayq::fault
