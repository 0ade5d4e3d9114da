// The public Waiter: one per queue wakes many callers, blocking or by callback, at the queue's
// next due time by the Redis clock, without polling; it survives a Redis restart. The waiters of
// a Client share one timer thread and one subscriber connection, whatever the number of queues.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using WaiterTest = RedisTest;
using SteadyClock = std::chrono::steady_clock;

// No safety net: only a due time, a wake signal or a subscription can make these waiters fire.
constexpr WaiterOptions kNoIdleCheck{.idle_check = 1h};

SteadyClock::time_point event_deadline() { return SteadyClock::now() + kEventDeadline; }

// Starts the waiter and awaits its first subscription and the firing that follows it, so that
// what a test awaits next is caused by the test.
void start_subscribed(Waiter& w) {
    w.start();
    ASSERT_TRUE(eventually([&] {
        const WaiterStats s = w.stats();
        return s.subscriptions >= 1 && s.fired >= 1;
    }));
}

// Blocks `count` threads in wait(seen) and records what each wait answered.
class BlockedWaiters {
  public:
    BlockedWaiters(Waiter& w, std::size_t count) : answers_(count) {
        const std::uint64_t seen = w.epoch();
        for (std::size_t i = 0; i < count; ++i) {
            threads_.emplace_back([&w, seen, this, i] {
                answers_[i] = w.wait(seen, event_deadline()) ? 1 : 0;
                returned_.fetch_add(1);
            });
        }
    }
    ~BlockedWaiters() { join(); }
    BlockedWaiters(const BlockedWaiters&) = delete;
    BlockedWaiters& operator=(const BlockedWaiters&) = delete;

    // Every wait's answer, once all returned.
    std::vector<int> answers() {
        join();
        return answers_;
    }
    std::size_t returned() const { return returned_.load(); }

  private:
    void join() {
        for (auto& t : threads_) {
            if (t.joinable()) t.join();
        }
    }
    std::vector<int> answers_;
    std::atomic<std::size_t> returned_{0};
    std::vector<std::thread> threads_;
};

TEST_F(WaiterTest, OneSendWakesEveryWaiterAndEveryCallback) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    constexpr std::size_t kCallers = 8;
    std::atomic<int> called{0};
    std::vector<Waiter::Subscription> subscriptions;
    for (std::size_t i = 0; i < kCallers; ++i)
        subscriptions.push_back(w.subscribe([&] { ++called; }));
    BlockedWaiters waiters(w, kCallers);
    q.send("m");  // on an empty queue: a wake signal
    EXPECT_EQ(waiters.answers(), std::vector<int>(kCallers, 1));
    ASSERT_TRUE(eventually([&] { return called.load() >= static_cast<int>(kCallers); }));
    EXPECT_GE(w.stats().signals, 1U);
}

TEST_F(WaiterTest, FiresWhenADelayedMessageFallsDueNeverEarlier) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    const std::uint64_t seen = w.epoch();
    const SendResult sent = q.send("later", {.delay = 300ms});
    ASSERT_TRUE(w.wait(seen, event_deadline()));
    // Aimed by the Redis clock, erring late: the message is due when the waiter fires.
    EXPECT_GE(server().time_ms(), ms(sent.due));
    const FetchResult r = leases(q).fetch(10, 30s);
    ASSERT_EQ(r.deliveries.size(), 1U);
    EXPECT_EQ(r.deliveries[0].id(), sent.id);
}

TEST_F(WaiterTest, FiresAtTheNextDueTimeOfAReportedFetch) {
    Queue q = queue();
    // Sent before the waiter listens: its wake signal is lost, only the fetch tells the time.
    const SendResult sent = q.send("later", {.delay = 300ms});
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    const std::uint64_t seen = w.epoch();
    const FetchResult empty = leases(q).fetch(10, 30s);
    ASSERT_TRUE(empty.next.has_value());
    w.note_fetch(empty);
    ASSERT_TRUE(w.wait(seen, event_deadline()));
    EXPECT_GE(server().time_ms(), ms(sent.due));
    EXPECT_EQ(leases(q).fetch(10, 30s).deliveries.size(), 1U);
}

// A fetch tells the Redis clock to the microsecond, so that a waiter aims at the due instant
// rather than somewhere in the millisecond after it.
TEST_F(WaiterTest, AFetchTellsTheRedisClockToTheMicrosecond) {
    Queue q = queue();
    std::vector<std::int64_t> fractions;
    for (int i = 0; i < 5; ++i) {
        const std::int64_t before = server().time_us();
        const FetchResult r = leases(q).fetch(1, 30s);
        const std::int64_t after = server().time_us();
        const std::int64_t at = ms(r.now) * 1000 + r.now_micros.count();
        EXPECT_LE(before, at);
        EXPECT_GE(after, at);
        EXPECT_GE(r.now_micros.count(), 0);
        EXPECT_LT(r.now_micros.count(), 1000);
        fractions.push_back(r.now_micros.count());
    }
    // Five calls all on a whole millisecond would say the script still answers milliseconds.
    EXPECT_TRUE(std::any_of(fractions.begin(), fractions.end(), [](auto f) { return f != 0; }));
}

TEST_F(WaiterTest, WaitReturnsFalseAtItsDeadlineWhenNothingComes) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    const std::uint64_t seen = w.epoch();
    EXPECT_FALSE(w.wait(seen, SteadyClock::now() + 50ms));
    EXPECT_EQ(w.epoch(), seen);
    // A waiter that never started fires for nothing either.
    Waiter idle(leases(q), kNoIdleCheck);
    EXPECT_FALSE(idle.wait_until_due(SteadyClock::now() + 10ms));
}

TEST_F(WaiterTest, ResubscribesAfterARestart) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    const std::uint64_t fired = w.stats().fired;
    server().restart();
    // Resubscribing fires too: signals sent while it was not listening are gone.
    ASSERT_TRUE(eventually([&] {
        const WaiterStats s = w.stats();
        return s.subscriptions >= 2 && s.fired > fired;
    }));
    EXPECT_GE(w.stats().redis_errors, 1U);
    const std::uint64_t seen = w.epoch();
    q.send("after the restart");
    EXPECT_TRUE(w.wait(seen, event_deadline()));
}

TEST_F(WaiterTest, StopWakesEveryWaiterAndEndsCallbacks) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    std::atomic<int> called{0};
    Waiter::Subscription subscription = w.subscribe([&] { ++called; });
    BlockedWaiters waiters(w, 4);
    w.stop();
    EXPECT_EQ(waiters.answers(), std::vector<int>(4, 0));
    EXPECT_FALSE(w.wait_until_due(event_deadline()));  // at once: stopped
    q.send("after the stop");
    EXPECT_EQ(called.load(), 0);
}

TEST_F(WaiterTest, AResetSubscriptionIsNotCalledAgain) {
    Queue q = queue();
    Waiter w(leases(q), kNoIdleCheck);
    start_subscribed(w);
    std::atomic<int> kept{0};
    std::atomic<int> dropped{0};
    Waiter::Subscription drop = w.subscribe([&] { ++dropped; });
    Waiter::Subscription keep = w.subscribe([&] { ++kept; });
    drop.reset();
    q.send("m");
    ASSERT_TRUE(eventually([&] { return kept.load() >= 1; }));
    // Both would have been called in the same firing, one after the other.
    EXPECT_EQ(dropped.load(), 0);
}

std::size_t thread_count() {
    const std::filesystem::directory_iterator tasks("/proc/self/task");
    return static_cast<std::size_t>(std::distance(begin(tasks), end(tasks)));
}

long long redis_clients(const RedisServer& server) {
    return server.info_integer("clients", "connected_clients");
}

long long shard_channels(const RedisServer& server) {
    return static_cast<long long>(server.command({"PUBSUB", "SHARDCHANNELS"}).elements.size());
}

// Starts a waiter on each of `count` queues and awaits their subscriptions.
std::vector<std::unique_ptr<Waiter>> start_many(Client& client, std::size_t count) {
    std::vector<std::unique_ptr<Waiter>> waiters;
    for (std::size_t i = 0; i < count; ++i) {
        waiters.push_back(
            std::make_unique<Waiter>(client.leases("q" + std::to_string(i)), kNoIdleCheck));
        waiters.back()->start();
    }
    EXPECT_TRUE(eventually([&] {
        for (const auto& w : waiters) {
            if (w->stats().subscriptions == 0) return false;
        }
        return true;
    }));
    return waiters;
}

// The attack on `delayq serve` was 300 queue names long-polled: +600 threads, +329 connections.
TEST_F(WaiterTest, ManyQueuesCostNoThreadAndNoConnectionEach) {
    Queue q = queue();
    Waiter first(leases(q), kNoIdleCheck);
    start_subscribed(first);  // the client's shared timer and subscriber are up
    const std::size_t threads = thread_count();
    const long long clients = redis_clients(server());

    std::vector<std::unique_ptr<Waiter>> many = start_many(client(), 300);
    EXPECT_EQ(thread_count(), threads);
    // At most the pool's connection for the TIME that aims the newcomers.
    EXPECT_LE(redis_clients(server()), clients + 1);
    EXPECT_EQ(shard_channels(server()), 301);

    // Each signal still reaches its own queue's waiter only.
    Waiter& target = *many[150];
    const std::uint64_t seen = target.epoch();
    client().queue("q150").send("m");
    EXPECT_TRUE(target.wait(seen, event_deadline()));
    EXPECT_EQ(target.stats().signals, 1U);
    EXPECT_EQ(many[149]->stats().signals, 0U);

    // Stopped, they are unsubscribed; the first one still hears its queue.
    many.clear();
    ASSERT_TRUE(eventually([&] { return shard_channels(server()) == 1; }));
    EXPECT_EQ(thread_count(), threads);
    const std::uint64_t before = first.epoch();
    q.send("still heard");
    EXPECT_TRUE(first.wait(before, event_deadline()));
}

class WaiterMaxClientsTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override {
        return {.extra_args = {"--maxclients", "20"}};
    }
};

// With a connection each, 80 waiters of one client took every connection Redis allows.
TEST_F(WaiterMaxClientsTest, WaitersOnManyQueuesLeaveRedisToOtherClients) {
    std::vector<std::unique_ptr<Waiter>> many = start_many(client(), 80);
    for (const auto& w : many) EXPECT_EQ(w->stats().redis_errors, 0U);
    Client other(server().url());
    EXPECT_NO_THROW(other.ping());
    EXPECT_EQ(other.queue("elsewhere").send("m").id.empty(), false);
}

TEST_F(WaiterTest, BadOptionsAreRefused) {
    Queue q = queue();
    EXPECT_THROW(Waiter(leases(q), {.idle_check = 0ms}), InvalidArgument);
}

}  // namespace
}  // namespace delayq::test
