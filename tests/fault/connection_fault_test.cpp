// Scenario 4: connections killed under load (CLIENT KILL by type and by the address of one
// producer's or consumer's connection), Redis paused longer than the command timeout (CLIENT
// PAUSE), and Redis asleep longer than the visibility timeout (DEBUG SLEEP). Nothing is lost; a
// producer whose send timed out retries with the same id and leaves exactly one message.
#include <map>
#include <thread>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultConnection : public FaultTest {
  protected:
    bool producers_running() {
        bool running = false;
        for (auto& [name, w] : workers_) running = running || (name[0] == 'p' && w->running());
        return running;
    }

    // Every id was stored once, retried sends included: Redis created one message per
    // acknowledged id, and no id had two first deliveries. (An id may have none: a fetch whose
    // reply was lost still counted its attempt.)
    void expect_one_message_per_id(const Report& report) {
        std::map<std::string, int> first_deliveries;
        for (const auto& d : history().deliveries) first_deliveries[d.id] += d.attempt == 1;
        for (const auto& [id, n] : first_deliveries) EXPECT_LE(n, 1) << id;
        EXPECT_EQ(admin().stats().totals.sent, report.sends_acknowledged);
    }
};

TEST_F(FaultConnection, ClientKillOfProducerAndConsumerConnections) {
    const ProducerSpec producer{
        .count = 150, .delay_min_ms = 300, .delay_max_ms = 600, .interval_ms = 5};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 10, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);

    std::map<std::string, int> kills;
    for (int round = 0; producers_running(); ++round) {
        std::this_thread::sleep_for(50ms);
        const std::int64_t now = redis_now();
        switch (round % 4) {
            case 0:
                server().command({"CLIENT", "KILL", "TYPE", "normal"});
                record_fault("client_kill", "", now, now);
                ++kills["type normal"];
                break;
            case 1:
                server().command({"CLIENT", "KILL", "TYPE", "pubsub"});
                record_fault("client_kill", "", now, now);
                ++kills["type pubsub"];
                break;
            default: {
                const std::string target = round % 4 == 2 ? "p1" : "c1";
                for (const auto& addr : connection_addrs(target)) {
                    if (!server().command({"CLIENT", "KILL", "ADDR", addr}).is_error()) {
                        record_fault("client_kill", target, now, now);
                        ++kills["addr of " + target];
                    }
                }
            }
        }
    }
    await_all_handled();
    const Report report = finish();
    expect_one_message_per_id(report);
    EXPECT_GT(kills["type normal"], 0);
    EXPECT_GT(kills["addr of p1"], 0);
    EXPECT_GT(kills["addr of c1"], 0);
}

TEST_F(FaultConnection, ClientPauseLongerThanTheCommandTimeout) {
    // Due well after the retry, so the first try's message (if it landed) still holds the id.
    const ProducerSpec producer{
        .count = 100, .delay_min_ms = 1000, .delay_max_ms = 1500, .interval_ms = 10};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 10, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);
    ASSERT_TRUE(await_history([](const History& h) { return h.sends.size() >= 20; }));

    // Workers time out after 500 ms; the pause holds every command for 1500 ms.
    const std::int64_t paused_at = redis_now();
    ASSERT_FALSE(server().command({"CLIENT", "PAUSE", "1500", "ALL"}).is_error());
    const std::int64_t resumed_at = redis_now();  // answered once the pause is over
    record_fault("client_pause", "", paused_at, resumed_at);

    await_all_handled();
    const Report report = finish();
    EXPECT_GT(report.sends_unknown, 0u) << "no send timed out during the pause";
    expect_one_message_per_id(report);
}

TEST_F(FaultConnection, DebugSleepLongerThanTheVisibilityTimeout) {
    const ProducerSpec producer{
        .count = 100, .delay_min_ms = 300, .delay_max_ms = 600, .interval_ms = 10};
    start_producer("p1", producer);
    start_producer("p2", producer);
    const ConsumerSpec consumer{.visibility_ms = 1000, .handler_sleep_ms = 100, .concurrency = 4};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);
    ASSERT_TRUE(await_history([](const History& h) { return h.deliveries.size() >= 4; }));

    // Redis's clock runs on while it sleeps: leases held now lapse before anyone can extend them.
    const std::int64_t slept_at = redis_now();
    ASSERT_FALSE(server().command({"DEBUG", "SLEEP", "2"}).is_error());
    record_fault("debug_sleep", "", slept_at, redis_now());

    await_all_handled();
    const Report report = finish();
    expect_one_message_per_id(report);
    // Sends that timed out while Redis slept ran when it woke (their connections were closed by
    // then), so retries with the same id found the message stored: still one message per id.
    EXPECT_GT(report.sends_unknown, 0u);
    EXPECT_GT(report.sends_duplicate, 0u);
}

}  // namespace
}  // namespace delayq::fault
