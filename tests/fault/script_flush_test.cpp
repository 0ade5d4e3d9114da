// Scenario 5: SCRIPT FLUSH, and FUNCTION FLUSH, over and over while producers and consumers run.
// The library reloads its scripts on NOSCRIPT, and a call that finds its function missing checks
// and loads the library again and runs once more (function mode is the default): so no
// operation fails either way. Where the library cannot be had (FUNCTION LOAD refused at
// maxmemory, FCALL refused to the user), the operations run as scripts, and still none fails.
#include <chrono>
#include <functional>
#include <thread>

#include "fault/fault_fixture.hpp"
#include "support/acl.hpp"
#include "support/full_redis.hpp"

namespace delayq::fault {
namespace {

class FaultFlush : public FaultTest {
  protected:
    static constexpr const char* kConsumers[] = {"c1", "c2"};

    void start_consumers() {
        const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 5, .concurrency = 4};
        for (const char* name : kConsumers) start_consumer(name, consumer);
    }

    // `what` FLUSH (SCRIPT or FUNCTION) every 10 ms, recorded as `fault`, while `busy` holds.
    // Returns how many flushes there were.
    int flush_while(const std::string& what, const std::string& fault,
                    const std::function<bool()>& busy) {
        int flushes = 0;
        while (busy()) {
            const std::int64_t now = redis_now();
            const auto r = server().command({what, "FLUSH"});
            EXPECT_FALSE(r.is_error()) << r.str;
            record_fault(fault, "", now, now);
            ++flushes;
            std::this_thread::sleep_for(10ms);
        }
        return flushes;
    }

    // Everything sent was handled once: no send, lease or ack failed, nothing came twice.
    void expect_no_failure(const Report& report) {
        EXPECT_EQ(report.sends_unknown + report.sends_failed, 0u);
        EXPECT_EQ(report.redeliveries, 0u);
        EXPECT_TRUE(report.duplicates.empty());
        for (const char* name : kConsumers) {
            const std::string log = worker(name).log();
            EXPECT_NE(log.find("leases_lost=0 redis_errors=0"), std::string::npos) << log;
        }
    }

    // Two producers and two consumers run while `what` is flushed every 10 ms.
    void expect_no_operation_fails(const std::string& what, const std::string& fault) {
        const ProducerSpec producer{
            .count = 150, .delay_min_ms = 0, .delay_max_ms = 200, .interval_ms = 5};
        start_producer("p1", producer);
        start_producer("p2", producer);
        start_consumers();
        const int flushes = flush_while(
            what, fault, [&] { return worker("p1").running() || worker("p2").running(); });
        await_all_handled();
        EXPECT_GT(flushes, 10);
        expect_no_failure(finish());
    }

    // INFO commandstats' line of `command` ("fcall", "evalsha", "function|load"), or "".
    std::string command_stats(const std::string& command) {
        const std::string info = server().command({"INFO", "commandstats"}).str;
        const auto from = info.find("cmdstat_" + command + ":");
        if (from == std::string::npos) return "";
        return info.substr(from, info.find('\n', from) - from);
    }
};

using FaultScriptFlush = FaultFlush;
using FaultFunctionFlush = FaultFlush;

TEST_F(FaultScriptFlush, NoOperationFails) { expect_no_operation_fails("SCRIPT", "script_flush"); }

TEST_F(FaultFunctionFlush, NoOperationFails) {
    expect_no_operation_fails("FUNCTION", "function_flush");
    // The library came back after the flushes: the workers called functions all along.
    EXPECT_NE(command_stats("fcall"), "");
}

// FUNCTION FLUSH while Redis is at maxmemory: the library cannot be loaded again (FUNCTION LOAD
// is refused, OOM), so the consumers drain by EVALSHA, without one failed fetch or ack.
TEST_F(FaultFunctionFlush, AtMaxmemoryConsumersDrainByScripts) {
    // The backlog first (a full Redis refuses sends), due while the consumers run.
    start_producer("p1", {.count = 300, .delay_min_ms = 1000, .delay_max_ms = 2000});
    ASSERT_EQ(worker("p1").wait(kDeadline), 0);
    ASSERT_GT(test::fill_with_keys(server(), 1024 * 1024), 0);
    start_consumers();
    const std::size_t sent = history().sends.size();
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    const int flushes = flush_while("FUNCTION", "function_flush", [&] {
        return history().acks.size() < sent && std::chrono::steady_clock::now() < deadline;
    });
    await_all_handled();
    EXPECT_GT(flushes, 10);
    // Redis stayed full throughout: a send is still refused, and so was every reload.
    EXPECT_THROW(client_->queue(kQueue).send("probe"), OutOfMemoryError);
    EXPECT_NE(command_stats("function|load").find("rejected_calls="), std::string::npos);
    EXPECT_EQ(command_stats("function|load").find("rejected_calls=0,"), std::string::npos)
        << command_stats("function|load");
    EXPECT_NE(command_stats("evalsha"), "");
    expect_no_failure(finish());
}

// A user who may not FCALL (nor FCALL_RO), though the library is loaded and the user may list
// it: every call is refused once as NOPERM and from then on runs by EVALSHA; no operation fails.
TEST_F(FaultFunctionFlush, WithoutFcallRightsEverythingRunsByScripts) {
    ASSERT_EQ(client_->functions().load().status, LoadStatus::kLoaded);
    ASSERT_FALSE(test::add_acl_user(server(), "nofcall", "nofcall-secret", {"-fcall", "-fcall_ro"})
                     .is_error());
    worker_url_ = "redis://nofcall:nofcall-secret@127.0.0.1:" + std::to_string(server().port());
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 0, .delay_max_ms = 200, .interval_ms = 5};
    start_producer("p1", producer);
    start_producer("p2", producer);
    start_consumers();
    await_all_handled();
    expect_no_failure(finish());
    // Tried, refused, never run: a refused call counts in rejected_calls only.
    const std::string fcall = command_stats("fcall");
    EXPECT_TRUE(fcall.starts_with("cmdstat_fcall:calls=0,")) << fcall;
    EXPECT_EQ(fcall.find("rejected_calls=0,"), std::string::npos) << fcall;
    EXPECT_NE(command_stats("evalsha"), "");
}

}  // namespace
}  // namespace delayq::fault
