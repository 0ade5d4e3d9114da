// Scenario 5: SCRIPT FLUSH, and FUNCTION FLUSH, over and over while producers and consumers run.
// The library reloads its scripts on NOSCRIPT, and a call that finds its function missing checks
// and loads the library again and runs once more (function mode is the default): so no
// operation fails either way.
#include <thread>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultFlush : public FaultTest {
  protected:
    // Two producers and two consumers run while `what` (SCRIPT or FUNCTION) is flushed every
    // 10 ms: no send, lease or ack fails, and nothing is delivered twice.
    void expect_no_operation_fails(const std::string& what, const std::string& fault) {
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
            ASSERT_FALSE(server().command({what, "FLUSH"}).is_error());
            record_fault(fault, "", now, now);
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
};

using FaultScriptFlush = FaultFlush;
using FaultFunctionFlush = FaultFlush;

TEST_F(FaultScriptFlush, NoOperationFails) { expect_no_operation_fails("SCRIPT", "script_flush"); }

TEST_F(FaultFunctionFlush, NoOperationFails) {
    expect_no_operation_fails("FUNCTION", "function_flush");
    // The library came back after the flushes: the workers called functions all along.
    const auto info = server().command({"INFO", "commandstats"});
    EXPECT_NE(info.str.find("cmdstat_fcall:"), std::string::npos);
}

}  // namespace
}  // namespace delayq::fault
