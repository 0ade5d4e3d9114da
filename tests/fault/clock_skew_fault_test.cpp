// Scenario 7: producers and consumers whose wall clocks are minutes off (libfaketime preloaded)
// run together with ordinary ones. Due times come from the Redis clock, so they schedule and
// deliver like the others: nothing lost, nothing early.
#include <unistd.h>

#include <cstdlib>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

std::string find_libfaketime() {
    for (const char* dir :
         {"/usr/lib/x86_64-linux-gnu/faketime", "/usr/lib/aarch64-linux-gnu/faketime",
          "/usr/lib/faketime", "/usr/local/lib/faketime"}) {
        const std::string path = std::string(dir) + "/libfaketimeMT.so.1";
        if (::access(path.c_str(), R_OK) == 0) return path;
    }
    return "";
}

class FaultClockSkew : public FaultTest {
  protected:
    void SetUp() override {
        libfaketime_ = find_libfaketime();
        if (libfaketime_.empty()) {
            GTEST_SKIP() << "libfaketime is not installed (Debian package 'faketime')";
        }
        FaultTest::SetUp();
    }

    // Only the wall clock moves: the library's timeouts run on the steady clock. ASan must
    // tolerate a library preloaded ahead of it.
    Wrapper skewed(const std::string& offset) const {
        std::string asan = "verify_asan_link_order=0";
        if (const char* existing = std::getenv("ASAN_OPTIONS")) {
            asan = std::string(existing) + ":" + asan;
        }
        return {{},
                {"LD_PRELOAD=" + libfaketime_, "FAKETIME=" + offset,
                 "FAKETIME_DONT_FAKE_MONOTONIC=1", "ASAN_OPTIONS=" + asan}};
    }

    // The worker's own clock, as it printed it at start.
    std::int64_t local_clock(const std::string& name) {
        std::int64_t clock = 0;
        EXPECT_TRUE(await_history([&](const History&) {
            const std::string log = worker(name).log();
            const std::size_t at = log.find(": local clock ");
            if (at == std::string::npos) return false;
            clock = std::stoll(log.substr(at + 14));
            return true;
        }));
        return clock;
    }

    std::string libfaketime_;
};

TEST_F(FaultClockSkew, SkewedWorkersScheduleAndDeliverLikeTheOthers) {
    constexpr long long kDelayMin = 200;
    constexpr long long kDelayMax = 1500;
    constexpr std::int64_t kSkewMs = 5 * 60 * 1000;
    const std::int64_t started = redis_now();
    const ProducerSpec producer{
        .count = 40, .delay_min_ms = kDelayMin, .delay_max_ms = kDelayMax, .interval_ms = 20};
    start_producer("p1", producer);
    start_producer("p2", producer, skewed("-5m"));
    start_producer("p3", producer, skewed("+5m"));
    // No polling safety net worth the name: a consumer that aimed its sleep by its own clock
    // would oversleep by minutes.
    const ConsumerSpec consumer{
        .visibility_ms = 1000, .handler_sleep_ms = 20, .concurrency = 1, .idle_check_ms = 600'000};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer, skewed("+5m"));
    start_consumer("c3", consumer, skewed("-5m"));

    // faketime really moved the skewed workers' clocks, or the test would prove nothing.
    EXPECT_LT(local_clock("p2"), redis_now() - kSkewMs / 2);
    EXPECT_GT(local_clock("p3"), redis_now() + kSkewMs / 2);
    EXPECT_GT(local_clock("c2"), redis_now() + kSkewMs / 2);
    EXPECT_LT(local_clock("c3"), redis_now() - kSkewMs / 2);
    for (const std::string name : {"p2", "p3", "c2", "c3"}) {
        record_fault("clock_skew", name, started, started);
    }

    await_all_handled();
    const std::int64_t ended = redis_now();
    const History h = history();
    const Report report = finish();
    EXPECT_EQ(report.sends_acknowledged, 120u);
    EXPECT_TRUE(report.duplicates.empty());
    // Due times are Redis time of the send plus the delay, whoever's clock is off.
    for (const auto& s : h.sends) {
        EXPECT_GE(s.due_ms, started + kDelayMin) << s.process << ' ' << s.id;
        EXPECT_LE(s.due_ms, ended + kDelayMax) << s.process << ' ' << s.id;
    }
    std::map<std::string, int> per_consumer;
    for (const auto& d : h.deliveries) ++per_consumer[d.process];
    EXPECT_GT(per_consumer["c2"], 0);
    EXPECT_GT(per_consumer["c3"], 0);
}

}  // namespace
}  // namespace delayq::fault
