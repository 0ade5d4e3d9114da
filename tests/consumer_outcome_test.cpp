// The Consumer: what a handler's outcome or exception does, and the dead-letter hook.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using ConsumerOutcomeTest = RedisTest;

// Nacks the first attempt with `nack` and acks the retry.
Handler nack_first_attempt(Nack nack) {
    return [nack](const Delivery& d) -> Outcome {
        if (d.attempt() == 1) return nack;
        return Ack{};
    };
}

TEST_F(ConsumerOutcomeTest, HandlerExceptionIsANackWithItsMessage) {
    Queue q = queue();
    const SendResult s = q.send("x", {.max_attempts = 2});
    Collector<DeliveryRecord> seen;
    Collector<DeadLetterEvent> dead;
    Collector<std::string> errors_seen_by_handler;
    Consumer c(
        leases(q),
        recording(seen,
                  [&](const Delivery& d) -> Outcome {
                      if (d.attempt() > 1)
                          errors_seen_by_handler.add(admin(q).get(d.id())->last_error);
                      throw std::runtime_error("boom on attempt " + std::to_string(d.attempt()));
                  }),
        reporting_dead_letters_to(dead));
    c.start();
    ASSERT_TRUE(dead.wait_for(1));
    c.stop();
    c.wait();

    EXPECT_EQ(seen.size(), 2u);
    ASSERT_EQ(errors_seen_by_handler.size(), 1u);
    EXPECT_EQ(errors_seen_by_handler.items()[0], "boom on attempt 1");
    const DeadLetterEvent e = dead.items()[0];
    EXPECT_EQ(e.id, s.id);
    EXPECT_EQ(e.queue, "q");
    EXPECT_EQ(e.reason, "attempts exhausted");
    EXPECT_EQ(e.attempts, 2);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->last_error, "boom on attempt 2");
    const ConsumerStats st = c.stats();
    EXPECT_EQ(st.nacked, 1u);
    EXPECT_EQ(st.dead_lettered, 1u);
    EXPECT_EQ(st.acked, 0u);
}

TEST_F(ConsumerOutcomeTest, ExceptionOfAnyTypeIsANack) {
    Queue q = queue();
    const SendResult s = q.send("x", {.max_attempts = 3});
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q),
               recording(seen,
                         [](const Delivery& d) -> Outcome {
                             if (d.attempt() == 1) throw 42;
                             return Ack{};
                         }),
               fast_options());
    c.start();
    ASSERT_TRUE(seen.wait_for(2));
    ASSERT_TRUE(eventually([&] { return !admin(q).get(s.id); }));
    c.stop();
    c.wait();
    EXPECT_EQ(seen.items()[1].attempt, 2);
    EXPECT_EQ(c.stats().acked, 1u);
    EXPECT_EQ(c.stats().nacked, 1u);
}

TEST_F(ConsumerOutcomeTest, NackOutcomeWithDelayRetriesNoEarlier) {
    Queue q = queue();
    q.send("x");
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q),
               recording(seen, nack_first_attempt(Nack{.delay = 400ms, .error = "not yet"})),
               fast_options());
    c.start();
    ASSERT_TRUE(seen.wait_for(2));
    const auto r = seen.items();
    EXPECT_EQ(r[1].attempt, 2);
    EXPECT_GE(r[1].due_ms, r[0].delivered_at_ms + 400);
    EXPECT_GE(r[1].delivered_at_ms, r[1].due_ms);
}

TEST_F(ConsumerOutcomeTest, NackWithoutDelayUsesTheConsumersBackoff) {
    Queue q = queue();
    q.send("x");
    Collector<DeliveryRecord> seen;
    ConsumerOptions o;
    o.backoff = Backoff{.initial = 500ms, .max = 1h, .multiplier = 2.0, .jitter = 0.0};
    Consumer c(leases(q),
               recording(seen, nack_first_attempt(Nack{.delay = std::nullopt, .error = "backoff"})),
               o);
    c.start();
    ASSERT_TRUE(seen.wait_for(2));
    const auto r = seen.items();
    EXPECT_GE(r[1].due_ms, r[0].delivered_at_ms + 500);
    EXPECT_GE(r[1].delivered_at_ms, r[1].due_ms);
}

TEST_F(ConsumerOutcomeTest, RejectDeadLettersAndCallsTheHook) {
    Queue q = queue();
    const SendResult s = q.send("x", {.max_attempts = 10});
    Collector<DeadLetterEvent> dead;
    Consumer c(
        leases(q), [](const Delivery&) -> Outcome { return Reject{.error = "poison"}; },
        reporting_dead_letters_to(dead));
    c.start();
    ASSERT_TRUE(dead.wait_for(1));
    const DeadLetterEvent e = dead.items()[0];
    EXPECT_EQ(e.id, s.id);
    EXPECT_EQ(e.reason, "rejected");
    EXPECT_EQ(e.attempts, 1);
    EXPECT_EQ(admin(q).get(s.id)->last_error, "poison");
    EXPECT_EQ(admin(q).get(s.id)->state, State::kDead);
}

TEST_F(ConsumerOutcomeTest, HookThatThrowsIsIgnored) {
    Queue q = queue();
    q.send("reject me", {.max_attempts = 1});
    Collector<DeadLetterEvent> dead;
    Collector<DeliveryRecord> acked;
    ConsumerOptions o = fast_options();
    o.on_dead_letter = [&](const DeadLetterEvent& e) {
        dead.add(e);
        throw std::runtime_error("hook failure");
    };
    Consumer c(
        leases(q),
        [&](const Delivery& d) -> Outcome {
            if (d.payload() == "reject me") return Reject{.error = "no"};
            acked.add(record_of(d));
            return Ack{};
        },
        o);
    c.start();
    ASSERT_TRUE(dead.wait_for(1));
    q.send("fine");
    ASSERT_TRUE(acked.wait_for(1));
    EXPECT_EQ(acked.items()[0].payload, "fine");
}

TEST_F(ConsumerOutcomeTest, HookSeesExpiriesFoundByTheConsumer) {
    Queue q = queue();
    const SendResult s = q.send("x", {.expire_after = 200ms});
    wait_for_server_time_after(s.due + 200ms);
    Collector<DeadLetterEvent> dead;
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), reporting_dead_letters_to(dead));
    c.start();
    ASSERT_TRUE(dead.wait_for(1));
    EXPECT_EQ(dead.items()[0].id, s.id);
    EXPECT_EQ(dead.items()[0].reason, "expired");
    EXPECT_EQ(seen.size(), 0u);
}

TEST_F(ConsumerOutcomeTest, LapsedLeaseFoundByTheConsumerCallsTheHook) {
    Queue q = queue();
    // A crashed consumer: leased and never answered.
    const auto [s, lost] = send_and_fetch(q, "x", {.max_attempts = 1}, 300ms);
    Collector<DeadLetterEvent> dead;
    Consumer c(leases(q), ack_all, reporting_dead_letters_to(dead));
    c.start();
    ASSERT_TRUE(dead.wait_for(1));
    EXPECT_EQ(dead.items()[0].id, s.id);
    EXPECT_EQ(dead.items()[0].reason, "attempts exhausted");
    EXPECT_EQ(leases(q).ack(lease_of(lost)).status, LeaseStatus::kLost);
}

TEST_F(ConsumerOutcomeTest, LapsedLeaseOfACrashedConsumerIsRedelivered) {
    Queue q = queue();
    const auto [s, lost] = send_and_fetch(q, "x", {.max_attempts = 3}, 300ms);
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), fast_options());
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    const DeliveryRecord r = seen.items()[0];
    EXPECT_EQ(r.id, s.id);
    EXPECT_EQ(r.attempt, 2);
    EXPECT_GE(r.delivered_at_ms, ms(lost.delivered_at()) + 300);
}

}  // namespace
}  // namespace delayq::test
