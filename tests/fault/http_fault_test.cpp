// The fault scenarios of the HTTP service: `delayq serve` between the workers and Redis.
// Scenario H1: an HTTP consumer is killed while it holds leases; its messages come back when
// the leases run out and another HTTP consumer handles them. Scenario H2: redis-server is
// killed and restarted under HTTP load; the service answers 503 while Redis is gone and goes
// on by itself. In both, the checker finds lost 0 and early 0.
#include <regex>
#include <thread>

#include "fault/fault_fixture.hpp"

#ifndef DELAYQ_CLI
#error "DELAYQ_CLI must name the delayq binary"
#endif
#ifndef DELAYQ_FAULT_HTTP_WORKER
#error "DELAYQ_FAULT_HTTP_WORKER must name the delayq_fault_http_worker binary"
#endif

namespace delayq::fault {
namespace {

class FaultHttp : public FaultTest {
  protected:
    // `delayq serve` on a free loopback port; returns the port once it listens.
    std::uint16_t start_serve() {
        auto serve = std::make_unique<WorkerProcess>(
            "serve",
            std::vector<std::string>{DELAYQ_CLI, "serve", "--redis", server().url(), "--listen",
                                     "127.0.0.1:0"},
            dir_ / "serve.log");
        WorkerProcess& process = *serve;
        workers_["serve"] = std::move(serve);
        const std::regex listening("listening on 127\\.0\\.0\\.1 port ([0-9]+)");
        const auto end = std::chrono::steady_clock::now() + kDeadline;
        std::smatch m;
        while (std::chrono::steady_clock::now() < end) {
            const std::string log = process.log();
            if (std::regex_search(log, m, listening)) {
                port_ = static_cast<std::uint16_t>(std::stoi(m[1]));
                return port_;
            }
            std::this_thread::sleep_for(20ms);
        }
        ADD_FAILURE() << "delayq serve did not start:\n" << process.log();
        return 0;
    }

    void start_http_worker(const std::string& name, std::vector<std::string> args) {
        std::vector<std::string> argv = {DELAYQ_FAULT_HTTP_WORKER,
                                         "--name",
                                         name,
                                         "--port",
                                         std::to_string(port_),
                                         "--queue",
                                         kQueue,
                                         "--history",
                                         (dir_ / (name + ".history")).string()};
        argv.insert(argv.end(), args.begin(), args.end());
        workers_[name] = std::make_unique<WorkerProcess>(name, argv, dir_ / (name + ".log"));
    }

    void start_http_producer(const std::string& name, const ProducerSpec& spec) {
        producers_.insert(name);
        start_http_worker(name, {"--role", "producer", "--count", std::to_string(spec.count),
                                 "--delay-min-ms", std::to_string(spec.delay_min_ms),
                                 "--delay-max-ms", std::to_string(spec.delay_max_ms),
                                 "--interval-ms", std::to_string(spec.interval_ms), "--seed",
                                 std::to_string(std::hash<std::string>{}(name) % 1'000'003)});
    }

    void start_http_consumer(const std::string& name, long long visibility_ms,
                             long long handler_sleep_ms, long long concurrency) {
        start_http_worker(name,
                          {"--role", "consumer", "--visibility-ms", std::to_string(visibility_ms),
                           "--handler-sleep-ms", std::to_string(handler_sleep_ms), "--concurrency",
                           std::to_string(concurrency)});
    }

  private:
    std::uint16_t port_ = 0;
};

TEST_F(FaultHttp, ConsumerKilledMidLeaseLosesNothing) {
    constexpr long long kVisibilityMs = 1000;
    ASSERT_NE(start_serve(), 0);
    start_http_producer("p1", {.count = 6});
    // Handlers far longer than the lease, and an HTTP consumer does not extend it: the kill
    // comes while both threads hold a message.
    start_http_consumer("h1", kVisibilityMs, 60'000, 2);
    ASSERT_TRUE(await_history([](const History& h) { return h.deliveries.size() == 2; }));
    kill_worker("h1");
    const std::vector<DeliveryEvent> interrupted = history().deliveries;

    start_http_consumer("h2", kVisibilityMs, 0, 2);
    await_all_handled();
    const Report report = finish();
    EXPECT_EQ(report.sends_acknowledged, 6u);
    const History h = history();
    for (const auto& first : interrupted) {
        EXPECT_EQ(first.process, "h1");
        bool again = false;
        for (const auto& d : h.deliveries) {
            if (d.id != first.id || d.token == first.token) continue;
            again = true;
            EXPECT_EQ(d.attempt, first.attempt + 1);
            // Not before the lease the killed consumer held had run out.
            EXPECT_GE(d.delivered_at_ms, first.delivered_at_ms + kVisibilityMs);
        }
        EXPECT_TRUE(again) << first.id << " was not delivered again";
    }
}

TEST_F(FaultHttp, RedisKilledAndRestartedUnderHttpLoadLosesNothing) {
    ASSERT_NE(start_serve(), 0);
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 300, .delay_max_ms = 600, .interval_ms = 10};
    start_http_producer("p1", producer);
    start_http_producer("p2", producer);
    start_http_consumer("h1", 1000, 10, 4);
    start_http_consumer("h2", 1000, 10, 4);

    const std::int64_t restarted_at = kill_and_restart_redis(2);

    await_all_handled();
    const Report report = finish();
    EXPECT_GT(report.sends_unknown, 0u);
    for (const std::string name : {"h1", "h2"}) {
        bool after = false;
        for (const auto& d : history().deliveries) {
            after = after || (d.process == name && d.delivered_at_ms > restarted_at);
        }
        EXPECT_TRUE(after) << name << " was delivered nothing after the restart";
    }
}

}  // namespace
}  // namespace delayq::fault
