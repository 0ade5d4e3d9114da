// Scenario 8: a randomized mix of the faults above with 4 producers and 4 consumers, for a
// bounded time. The fault sequence follows a seed that the test prints; set DELAYQ_CHAOS_SEED to
// replay it and DELAYQ_CHAOS_SECONDS to change its length (default 60, about one fault per
// second).
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <thread>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

long long env_number(const char* name, long long fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::stoll(value) : fallback;
}

class FaultChaos : public FaultTest {
  protected:
    static constexpr int kWorkers = 4;
    const ConsumerSpec consumer_{.visibility_ms = 1000, .handler_sleep_ms = 20, .concurrency = 2};

    std::string pick(const char* role) {
        return role + std::to_string(std::uniform_int_distribution<int>(1, kWorkers)(rng_));
    }
    int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

    void kill_consumer() {
        const std::string name = pick("c");
        kill_worker(name);
        std::this_thread::sleep_for(std::chrono::milliseconds(between(0, 500)));
        start_consumer(name, consumer_);
    }

    void stop_consumer() {
        const std::string name = pick("c");
        const std::int64_t start = redis_now();
        worker(name).signal(SIGSTOP);
        // Past the visibility timeout, so its leases lapse.
        std::this_thread::sleep_for(std::chrono::milliseconds(between(1100, 2000)));
        worker(name).signal(SIGCONT);
        record_fault("consumer_stop", name, start, redis_now());
    }

    void kill_redis() {
        const std::int64_t start = redis_now();
        server().kill();
        std::this_thread::sleep_for(std::chrono::milliseconds(between(100, 1000)));
        server().start();
        record_fault("redis_kill", "", start, redis_now());
    }

    void kill_connections() {
        const std::int64_t now = redis_now();
        if (between(0, 1) == 0) {
            server().command({"CLIENT", "KILL", "TYPE", between(0, 1) == 0 ? "normal" : "pubsub"});
            record_fault("client_kill", "", now, now);
            return;
        }
        const std::string name = pick(between(0, 1) == 0 ? "c" : "p");
        if (!worker(name).running()) return;
        for (const auto& addr : connection_addrs(name)) {
            server().command({"CLIENT", "KILL", "ADDR", addr});
        }
        record_fault("client_kill", name, now, now);
    }

    void flush_scripts() {
        const std::int64_t now = redis_now();
        server().command({"SCRIPT", "FLUSH"});
        record_fault("script_flush", "", now, now);
    }

    // The function library gone at once from under every worker: each reloads it on its next
    // call.
    void flush_functions() {
        const std::int64_t now = redis_now();
        server().command({"FUNCTION", "FLUSH"});
        record_fault("function_flush", "", now, now);
    }

    void pause_clients() {
        const std::int64_t start = redis_now();
        server().command({"CLIENT", "PAUSE", std::to_string(between(600, 1200)), "ALL"});
        record_fault("client_pause", "", start, redis_now());
    }

    std::mt19937_64 rng_;
};

TEST_F(FaultChaos, NothingLostUnderRandomFaults) {
    const auto seed = static_cast<std::uint64_t>(
        env_number("DELAYQ_CHAOS_SEED", static_cast<long long>(std::random_device{}() >> 1)));
    const long long seconds = env_number("DELAYQ_CHAOS_SECONDS", 60);
    std::cout << "[chaos] seed " << seed << ", " << seconds
              << " s (replay: DELAYQ_CHAOS_SEED=" << seed << ")" << std::endl;
    rng_.seed(seed);

    // Producers pace themselves to last about the chaos period; faults only slow them down. Due
    // no sooner than 300 ms: a send whose reply was lost is retried with its id while the first
    // try's message still exists (an id only deduplicates until its message is acked).
    const ProducerSpec producer{
        .count = seconds * 20, .delay_min_ms = 300, .delay_max_ms = 1000, .interval_ms = 50};
    for (int i = 1; i <= kWorkers; ++i) {
        start_producer("p" + std::to_string(i), producer);
        start_consumer("c" + std::to_string(i), consumer_);
    }

    // One fault per second on average; a fixed number of them, so that a seed replays the same
    // sequence of faults (kinds, targets, pauses), whatever the machine's speed.
    for (long long step = 0; step < seconds; ++step) {
        std::this_thread::sleep_for(std::chrono::milliseconds(between(200, 800)));
        switch (between(0, 6)) {
            case 0:
                kill_consumer();
                break;
            case 1:
                stop_consumer();
                break;
            case 2:
                kill_redis();
                break;
            case 3:
                kill_connections();
                break;
            case 4:
                flush_scripts();
                break;
            case 5:
                flush_functions();
                break;
            default:
                pause_clients();
                break;
        }
    }

    await_all_handled(60s);
    const Report report = finish();
    std::cout << "[chaos] seed " << seed << std::endl;
    EXPECT_GT(report.sends_acknowledged, 0u);
}

}  // namespace
}  // namespace delayq::fault
