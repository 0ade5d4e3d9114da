// Scenario 3: redis-server is killed with SIGKILL and restarted (appendonly yes, appendfsync
// always) while producers and consumers run. Every acknowledged send survives and is handled;
// producers get errors, not hangs, while it is down; consumers reconnect by themselves.
#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultRedisCrash : public FaultTest {};

std::size_t unknown_sends(const History& h) {
    std::size_t n = 0;
    for (const auto& s : h.sends) n += s.status == SendStatus::kUnknown ? 1 : 0;
    return n;
}

TEST_F(FaultRedisCrash, AcknowledgedSendsSurviveKillAndRestart) {
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 300, .delay_max_ms = 600, .interval_ms = 10};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 10, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);

    std::int64_t restarted_at = 0;
    for (int round = 1; round <= 2; ++round) {
        ASSERT_TRUE(await_history([&](const History& h) {
            return h.acks.size() >= static_cast<std::size_t>(40 * round);
        }));
        const std::size_t unknown_before = unknown_sends(history());
        const std::int64_t killed_at = redis_now();
        server().kill();
        // A producer's send must fail (its outcome unknown) rather than hang while Redis is gone.
        EXPECT_TRUE(
            await_history([&](const History& h) { return unknown_sends(h) > unknown_before; }));
        server().start();
        restarted_at = redis_now();
        record_fault("redis_kill", "", killed_at, restarted_at);
    }

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
