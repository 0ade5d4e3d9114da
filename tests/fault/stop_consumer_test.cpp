// Scenario 2: a consumer is frozen (SIGSTOP) past its visibility timeout, then thawed. Another
// consumer has the message by then; the stale consumer's ack is refused and changes nothing.
#include <signal.h>

#include "fault/fault_fixture.hpp"

namespace delayq::fault {
namespace {

class FaultStopConsumer : public FaultTest {
  protected:
    struct Frozen {
        DeliveryEvent delivery;  // the first delivery, which `process` was handling
        std::int64_t at_ms = 0;  // Redis time of the SIGSTOP
    };

    // Waits for the first delivery of the run, then freezes the consumer process handling it;
    // false if no delivery came.
    bool freeze_at_first_delivery(const std::string& process, Frozen& f) {
        const bool delivered = await_history([&](const History& h) {
            if (h.deliveries.empty()) return false;
            f.delivery = h.deliveries.front();
            return true;
        });
        if (!delivered) return false;
        f.at_ms = redis_now();
        worker(process).signal(SIGSTOP);
        return true;
    }
};

TEST_F(FaultStopConsumer, StaleAckAfterThawIsRefusedAndChangesNothing) {
    start_producer("p1", {.count = 3});
    // c1 acks by itself, so the history holds Redis's answer to its ack; its handler leaves the
    // test 800 ms to freeze it before that ack.
    start_consumer("c1", {.visibility_ms = 1000, .handler_sleep_ms = 800, .manual_ack = true});
    Frozen frozen;
    ASSERT_TRUE(freeze_at_first_delivery("c1", frozen));
    const DeliveryEvent& stale = frozen.delivery;
    const std::int64_t stopped_at = frozen.at_ms;

    // c2's handler holds the message long enough for the stale ack to land meanwhile.
    start_consumer("c2", {.visibility_ms = 1000, .handler_sleep_ms = 3000, .concurrency = 3});
    DeliveryEvent fresh;
    ASSERT_TRUE(await_history([&](const History& h) {
        for (const auto& d : h.deliveries) {
            if (d.process == "c2" && d.id == stale.id) fresh = d;
        }
        return fresh.token != 0;
    }));
    worker("c1").signal(SIGCONT);
    record_fault("consumer_stop", "c1", stopped_at, redis_now());
    EXPECT_EQ(fresh.attempt, stale.attempt + 1);

    std::optional<AckEvent> stale_ack;
    ASSERT_TRUE(await_history([&](const History& h) {
        for (const auto& a : h.acks) {
            if (a.process == "c1" && a.token == stale.token) stale_ack = a;
        }
        return stale_ack.has_value();
    }));
    EXPECT_EQ(stale_ack->status, AckStatus::kLeaseLost);
    // c2 still holds the message, as it did before the stale ack.
    const auto info = admin().get(stale.id);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->attempts, fresh.attempt);

    await_all_handled();
    const Report report = finish();
    EXPECT_EQ(report.sends_acknowledged, 3u);
    EXPECT_EQ(report.acks_lease_lost, 1u);
    EXPECT_TRUE(report.duplicates.empty());
}

// The same with delayq::Consumer on both sides: the thawed consumer's handler finishes, its
// ack (and lease extension) are refused, and its handling counts as a duplicate that the stop
// explains.
TEST_F(FaultStopConsumer, ThawedConsumerFindsItsLeaseLost) {
    start_producer("p1", {.count = 1});
    start_consumer("c1", {.visibility_ms = 1000, .handler_sleep_ms = 1500});
    Frozen frozen;
    ASSERT_TRUE(freeze_at_first_delivery("c1", frozen));
    const DeliveryEvent& stale = frozen.delivery;
    const std::int64_t stopped_at = frozen.at_ms;
    start_consumer("c2", {.visibility_ms = 1000, .handler_sleep_ms = 4000});
    ASSERT_TRUE(await_history([&](const History& h) { return h.deliveries.size() == 2; }));
    worker("c1").signal(SIGCONT);
    record_fault("consumer_stop", "c1", stopped_at, redis_now());

    // A graceful stop flushes c1's ack: it must find the lease gone and leave c2's in place.
    ASSERT_TRUE(await_history([](const History& h) { return !h.acks.empty(); }));
    ASSERT_EQ(worker("c1").terminate(kDeadline), 0);
    EXPECT_EQ(worker("c1").log().find("leases_lost=0"), std::string::npos) << worker("c1").log();
    const auto info = admin().get(stale.id);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->attempts, stale.attempt + 1);

    await_all_handled();
    const Report report = finish();
    ASSERT_EQ(report.duplicates.size(), 1u);
    EXPECT_EQ(report.duplicates[0].cause, "consumer_stop");
}

}  // namespace
}  // namespace delayq::fault
