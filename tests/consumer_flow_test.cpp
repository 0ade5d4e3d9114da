// The Consumer under way: lease extension, lost leases, concurrency, prefetch and shutdown.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using ConsumerFlowTest = RedisTest;

TEST_F(ConsumerFlowTest, ExtendsTheLeaseWhileTheHandlerRuns) {
    Queue q = queue();
    const SendResult s = q.send("slow");
    Collector<DeliveryRecord> seen;
    Latch finish;
    ConsumerOptions o = fast_options();
    o.concurrency = 2;  // a free slot that would pick the message up again if the lease lapsed
    // Extended every third of this; short, yet with room for a loaded machine's scheduling.
    o.visibility_timeout = 500ms;
    Consumer c(leases(q), recording(seen, ack_once_open(finish)), o);
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    const DeliveryRecord first = seen.items()[0];
    // Several lease lengths later, the message is still leased to the running handler.
    wait_for_server_time_after(from_ms(first.delivered_at_ms + 1600));
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kInFlight);
    EXPECT_EQ(info->attempts, 1);
    ASSERT_TRUE(info->lease_deadline);
    EXPECT_GT(ms(*info->lease_deadline), first.delivered_at_ms + 1600);
    finish.open();
    ASSERT_TRUE(eventually([&] { return !admin(q).get(s.id); }));
    c.stop();
    c.wait();
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(c.stats().acked, 1u);
    EXPECT_EQ(admin(q).stats().totals.retried, 0u);
}

TEST_F(ConsumerFlowTest, PrefetchedLeasesAreExtendedToo) {
    Queue q = queue();
    send_many(q, 4);
    Collector<DeliveryRecord> seen;
    Latch finish;
    ConsumerOptions o = fast_options();
    o.concurrency = 1;
    o.prefetch = 3;
    o.visibility_timeout = 500ms;
    Consumer c(leases(q),
               recording(seen,
                         [&](const Delivery&) -> Outcome {
                             if (seen.size() == 1) finish.wait(30s);
                             return Ack{};
                         }),
               o);
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    ASSERT_TRUE(eventually([&] { return admin(q).stats().in_flight == 4; }));
    // Several lease lengths while the first handler blocks and three messages wait in the buffer.
    wait_for_server_time_after(from_ms(seen.items()[0].delivered_at_ms + 1600));
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    finish.open();
    ASSERT_TRUE(seen.wait_for(4));
    ASSERT_TRUE(eventually([&] { return admin(q).stats().totals.acked == 4; }));
    for (const auto& r : seen.items()) EXPECT_EQ(r.attempt, 1);
    EXPECT_EQ(admin(q).stats().totals.retried, 0u);
}

TEST_F(ConsumerFlowTest, OnlyLeasesReallyLostAreCountedAsLost) {
    // Many outcomes recorded at once while the lease extender runs often: an extension that
    // races with the consumer's own ack or nack must not count as a lost lease.
    constexpr int kCount = 300;
    Queue q = queue();
    send_many(q, kCount);
    Collector<DeliveryRecord> started;
    Latch finish;
    ConsumerOptions o = fast_options();
    o.concurrency = kCount;
    o.visibility_timeout = 45ms;
    Consumer c(leases(q),
               recording(started,
                         [&](const Delivery& d) -> Outcome {
                             finish.wait(30s);
                             if (d.attempt() == 1 && d.id().back() % 4 != 0)
                                 return Nack{.delay = 1h, .error = "later"};
                             return Ack{};
                         }),
               o);
    c.start();
    ASSERT_TRUE(started.wait_for(kCount));
    finish.open();
    ASSERT_TRUE(eventually([&] {
        const QueueStats st = admin(q).stats();
        return st.in_flight == 0 && st.ready == 0;
    }));
    c.stop();
    c.wait();
    const ConsumerStats cs = c.stats();
    const QueueStats st = admin(q).stats();
    // Leases that really lapsed went back to pending: retried minus the consumer's nacks.
    const std::uint64_t lapsed = st.totals.retried - cs.nacked;
    EXPECT_LE(cs.leases_lost, lapsed) << "acked " << cs.acked << ", nacked " << cs.nacked;
    EXPECT_EQ(cs.acked + cs.nacked, static_cast<std::uint64_t>(started.size()) - lapsed);
}

TEST_F(ConsumerFlowTest, ShutdownTimeoutBoundsTheWaitForAStuckHandler) {
    Queue q = queue();
    const SendResult s = q.send("stuck");
    Collector<DeliveryRecord> seen;
    Latch finish;
    ConsumerOptions o = fast_options();
    o.visibility_timeout = 300ms;
    o.shutdown_timeout = 200ms;
    auto c = std::make_unique<Consumer>(leases(q), recording(seen, ack_once_open(finish)), o);
    c->start();
    ASSERT_TRUE(seen.wait_for(1));
    Latch stopped;
    std::thread stopper([&] {
        c->stop();
        c->wait();
        stopped.open();
    });
    const bool stopped_in_time = stopped.wait(20s);
    // The stuck handler no longer holds the message: its lease lapses and it is delivered again.
    std::optional<Delivery> again;
    if (stopped_in_time) {
        again = fetch_one(q, 30s);
    }
    finish.open();
    stopper.join();
    c.reset();
    EXPECT_TRUE(stopped_in_time) << "stop() waited for the stuck handler past shutdown_timeout";
    ASSERT_TRUE(again);
    EXPECT_EQ(again->id(), s.id);
    EXPECT_EQ(again->attempt(), 2);
}

TEST_F(ConsumerFlowTest, StopsOnSigtermWhenAskedAndRestoresTheHandler) {
    static std::atomic<int> previous_handler_calls{0};
    struct sigaction ours {};
    ours.sa_handler = [](int) { previous_handler_calls.fetch_add(1); };
    sigemptyset(&ours.sa_mask);
    struct sigaction saved {};
    ASSERT_EQ(::sigaction(SIGTERM, &ours, &saved), 0);

    Queue q = queue();
    q.send("x");
    Collector<DeliveryRecord> seen;
    ConsumerOptions o = fast_options();
    o.stop_on_signals = true;
    Consumer c(leases(q), recording(seen), o);
    Latch returned;
    std::thread runner([&] {
        c.run();
        returned.open();
    });
    ASSERT_TRUE(seen.wait_for(1));
    ::kill(::getpid(), SIGTERM);
    const bool stopped = returned.wait(20s);
    if (!stopped) c.stop();
    runner.join();
    EXPECT_TRUE(stopped) << "SIGTERM did not stop run()";
    EXPECT_EQ(previous_handler_calls.load(), 0);
    // Once the consumer is gone, SIGTERM reaches the application's handler again.
    ::kill(::getpid(), SIGTERM);
    EXPECT_TRUE(eventually([] { return previous_handler_calls.load() == 1; }));
    ::sigaction(SIGTERM, &saved, nullptr);
}

// Workers take several deliveries at once from a deep buffer. When one of them blocks in a
// handler, what it took and has not started must still be handled by the other workers.
TEST_F(ConsumerFlowTest, OneBlockedHandlerHoldsBackNoOtherMessage) {
    Queue q = queue();
    const std::vector<SendResult> sent = send_many(q, 400);
    const std::string blocker = sent[200].id;
    Latch unblock;
    Collector<DeliveryRecord> seen;
    ConsumerOptions o = fast_options();
    o.concurrency = 2;
    o.prefetch = 400;
    o.max_batch = 400;
    Consumer c(
        leases(q),
        [&](const Delivery& d) -> Outcome {
            if (d.id() == blocker) unblock.wait(40s);
            seen.add(record_of(d));
            return Ack{};
        },
        o);
    c.start();
    EXPECT_TRUE(seen.wait_for(399, 40s)) << "handled while one handler blocked: " << seen.size();
    unblock.open();
    EXPECT_TRUE(seen.wait_for(400));
    c.stop();
    c.wait();
    EXPECT_TRUE(eventually([&] { return admin(q).stats().in_flight == 0; }));
    EXPECT_EQ(admin(q).stats().totals.acked, 400u);
}

// Once handlers are fast, one woken worker takes a whole small fetch as its chunk. If its
// first handler then blocks, no other worker may be awake: one idle worker must still look
// again and take what the blocked one holds.
TEST_F(ConsumerFlowTest, ABlockedHandlerAfterFastOnesHoldsBackNoOtherMessage) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    Latch unblock;
    std::atomic<bool> block_next{false};
    ConsumerOptions o = fast_options();
    o.concurrency = 4;
    o.prefetch = 100;
    Consumer c(
        leases(q),
        [&](const Delivery& d) -> Outcome {
            if (block_next.exchange(false)) unblock.wait(40s);
            seen.add(record_of(d));
            return Ack{};
        },
        o);
    c.start();
    send_many(q, 200);
    ASSERT_TRUE(seen.wait_for(200, 40s));
    block_next = true;
    send_many(q, 40);
    EXPECT_TRUE(seen.wait_for(239, 40s)) << "handled while one handler blocked: " << seen.size();
    unblock.open();
    EXPECT_TRUE(seen.wait_for(240));
    c.stop();
    c.wait();
    EXPECT_EQ(admin(q).stats().totals.acked, 240u);
}

TEST_F(ConsumerFlowTest, RunsUpToConcurrencyHandlersAtOnce) {
    Queue q = queue();
    send_many(q, 12);
    std::mutex mutex;
    std::condition_variable cv;
    int active = 0;
    int peak = 0;
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    Collector<DeliveryRecord> seen;
    ConsumerOptions o = fast_options();
    o.concurrency = 3;
    Consumer c(
        leases(q),
        [&](const Delivery& d) -> Outcome {
            std::unique_lock lock(mutex);
            ++active;
            peak = std::max(peak, active);
            cv.notify_all();
            // Hold every handler until three ran at once, so the peak is reached if it can be.
            cv.wait_until(lock, give_up, [&] { return peak >= 3; });
            --active;
            lock.unlock();
            seen.add(record_of(d));
            return Ack{};
        },
        o);
    c.start();
    ASSERT_TRUE(seen.wait_for(12, 40s));
    c.stop();
    c.wait();
    EXPECT_EQ(peak, 3);
}

TEST_F(ConsumerFlowTest, GracefulStopReleasesPrefetchedAndLetsTheRunningHandlerFinish) {
    Queue q = queue();
    send_many(q, 10);
    Collector<DeliveryRecord> started;
    Latch finish;
    ConsumerOptions o = fast_options();
    o.concurrency = 1;
    o.prefetch = 5;
    o.max_batch = 10;
    auto consumer =
        std::make_unique<Consumer>(leases(q), recording(started, ack_once_open(finish)), o);
    consumer->start();
    ASSERT_TRUE(started.wait_for(1));
    // Beyond the running handler, the consumer holds `prefetch` more leases.
    EXPECT_TRUE(eventually([&] { return admin(q).stats().in_flight == 6; }));
    const std::size_t held = admin(q).stats().in_flight;
    ASSERT_GE(held, 2u);

    std::thread stopper([&] { consumer->stop(); });
    // The unstarted ones go back at once, while the running handler still runs.
    EXPECT_TRUE(eventually([&] { return admin(q).stats().in_flight == 1; }));
    EXPECT_FALSE(finish.is_open());
    for (const auto& m : admin(q).list(State::kReady).messages) EXPECT_EQ(m.attempts, 0);
    finish.open();
    stopper.join();
    consumer->wait();

    const std::string running_id = started.items()[0].id;
    EXPECT_TRUE(eventually([&] { return !admin(q).get(running_id); }))
        << "the running handler's ack";
    EXPECT_EQ(started.size(), 1u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.in_flight, 0u);
    EXPECT_EQ(st.ready, 9u);
    EXPECT_EQ(st.totals.acked, 1u);
    EXPECT_EQ(st.totals.released, held - 1);
    EXPECT_EQ(consumer->stats().released, held - 1);
    consumer.reset();
    EXPECT_EQ(admin(q).stats().ready, 9u);
}

// Without a prefetch option the consumer holds what its handlers finish in about 10 ms: after
// fast handlers, a fetch takes far more than the one message a handler of concurrency 1 has room
// for, so messages are leased beyond the running handler.
TEST_F(ConsumerFlowTest, AutomaticPrefetchHoldsMoreAfterFastHandlers) {
    Queue q = queue();
    send_many(q, 300);
    Latch finish;
    std::atomic<int> handled{0};
    ConsumerOptions o = fast_options();  // concurrency 1, prefetch unset
    Consumer c(
        leases(q),
        [&](const Delivery&) -> Outcome {
            if (++handled == 50) finish.wait(std::chrono::seconds(60));
            return Ack{};
        },
        o);
    c.start();
    EXPECT_TRUE(eventually([&] { return admin(q).stats().in_flight > 1; }));
    finish.open();
    EXPECT_TRUE(eventually([&] { return admin(q).stats().totals.acked == 300; }));
    c.stop();
    c.wait();
}

// Handlers slower than the automatic prefetch's 10 ms window leave nothing held beyond the running
// handler, for other consumers to take.
TEST_F(ConsumerFlowTest, AutomaticPrefetchHoldsNothingBehindSlowHandlers) {
    Queue q = queue();
    send_many(q, 6);
    Client observer(server().url());
    QueueAdmin watched = observer.admin(q.name());
    std::atomic<std::size_t> most_in_flight{0};
    Collector<std::string> done;
    Consumer c(
        leases(q),
        [&](const Delivery& d) -> Outcome {
            std::this_thread::sleep_for(15ms);  // the handler's work
            const std::size_t now = watched.stats().in_flight;
            if (now > most_in_flight) most_in_flight = now;
            done.add(d.id());
            return Ack{};
        },
        fast_options());
    c.start();
    ASSERT_TRUE(done.wait_for(6));
    c.stop();
    c.wait();
    EXPECT_EQ(most_in_flight.load(), 1u);
}

}  // namespace
}  // namespace delayq::test
