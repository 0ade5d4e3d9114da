// Scenario 5: SCRIPT FLUSH over and over while producers and consumers run. The library
// reloads its scripts on NOSCRIPT, so no operation fails.
#include <thread>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultScriptFlush : public FaultTest {};

TEST_F(FaultScriptFlush, NoOperationFails) {
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 0, .delay_max_ms = 200, .interval_ms = 5};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 5, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);

    int flushes = 0;
    while (worker("p1").running() || worker("p2").running()) {
        const std::int64_t now = redis_now();
        ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
        record_fault("script_flush", "", now, now);
        ++flushes;
        std::this_thread::sleep_for(10ms);
    }
    await_all_handled();
    const Report report = finish();
    EXPECT_GT(flushes, 10);
    EXPECT_EQ(report.sends_unknown + report.sends_failed, 0u);
    EXPECT_EQ(report.redeliveries, 0u);
    EXPECT_TRUE(report.duplicates.empty());
    for (const std::string name : {"c1", "c2"}) {
        const std::string log = worker(name).log();
        EXPECT_NE(log.find("leases_lost=0 redis_errors=0"), std::string::npos) << log;
    }
}

}  // namespace
}  // namespace delayq::fault
