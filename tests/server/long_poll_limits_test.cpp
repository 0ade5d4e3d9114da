// The long-poll hub's bounds: a queue's waiter is released when idle, the waiters and polls are
// capped in total and per token, any number of queues cost a constant number of threads and
// connections and stop in one step, and a failed fetch answers with its error.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runtime/long_poll.hpp"
#include "server/support/long_poll_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using namespace delayq::server::runtime;

std::size_t thread_count() {
    const std::filesystem::directory_iterator tasks("/proc/self/task");
    return static_cast<std::size_t>(std::distance(begin(tasks), end(tasks)));
}

PollRequest poll_on(const std::string& queue, const std::string& token, Answer& answer,
                    SteadyClock::time_point deadline) {
    return {queue, token, 1, std::chrono::seconds(30), deadline, answer.done()};
}

TEST_F(LongPollTest, AnIdleQueueIsReleasedAndALaterPollStillGetsWhatWasSentMeanwhile) {
    LongPollOptions options = no_idle_check();
    options.idle_release = std::chrono::milliseconds(0);
    hub_.emplace(client(), workers_.post(), options);
    Answer& first = new_answer();
    hub().wait(request(first, SteadyClock::now() + std::chrono::milliseconds(50)));
    ASSERT_TRUE(first.await());
    ASSERT_TRUE(eventually([&] { return hub().stats().released == 1; }));
    EXPECT_EQ(hub().stats().queues, 0U);
    // Its wake channel is unsubscribed by the subscriber's thread, after the release.
    EXPECT_TRUE(eventually([&] { return shard_channels() == 0; }));

    // Nothing listens now: the message's wake signal is lost, the next poll's fetch finds it.
    const SendResult sent = queue().send("meanwhile");
    Answer& later = new_answer();
    hub().wait(request(later, far()));
    const auto got = later.await();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->deliveries.size(), 1U);
    EXPECT_EQ(got->deliveries[0].id(), sent.id);
}

TEST_F(LongPollTest, PollsBeyondACapAreRefusedAndIdleQueuesMakeRoom) {
    LongPollOptions options = no_idle_check();
    options.max_queues = 3;
    options.max_queues_per_token = 2;
    options.max_polls_per_token = 3;
    hub_.emplace(client(), workers_.post(), options);
    const auto poll = [&](const std::string& queue, const std::string& token) {
        return hub().wait(poll_on(queue, token, new_answer(), far()));
    };
    const LongPollHub::PollId a0 = poll("q0", "a");
    const LongPollHub::PollId a1 = poll("q1", "a");
    EXPECT_THROW(poll("q2", "a"), TooManyPolls);  // a third queue for token a
    poll("q0", "a");                              // a queue it has: no new waiter
    EXPECT_THROW(poll("q0", "a"), TooManyPolls);  // a fourth poll of token a
    poll("q2", "b");
    EXPECT_THROW(poll("q3", "b"), TooManyPolls);  // a fourth queue in all
    poll("q0", "");                               // without auth, only the totals count
    LongPollStats s = hub().stats();
    EXPECT_EQ(s.refused, 3U);
    EXPECT_EQ(s.queues, 3U);
    EXPECT_EQ(s.waiting, 5U);

    // Once q1 is idle, its waiter makes room for another queue.
    hub().cancel(a1);
    ASSERT_TRUE(eventually([&] { return hub().stats().idle == 1; }));
    poll("q3", "b");
    s = hub().stats();
    EXPECT_EQ(s.released, 1U);
    EXPECT_EQ(s.queues, 3U);
    // Token a made q1, now gone: it may make another queue, but none is idle to make room.
    hub().cancel(a0);
    EXPECT_THROW(poll("q4", "a"), TooManyPolls);
    EXPECT_EQ(hub().stats().refused, 4U);
}

// The attack: 1,000 queue names long-polled held 2,000 threads and 1,000 connections, and
// stopping them took 48 s, one waiter after the other.
TEST_F(LongPollTest, AThousandQueuesCostConstantThreadsAndConnectionsAndStopInOneStep) {
    constexpr std::size_t kQueues = 1000;
    LongPollHub& hub = this->hub();
    hub.wait(poll_on("q0", "", new_answer(), far()));
    await_quiet(hub, 1);
    const std::size_t threads = thread_count();
    const long long clients = server().info_integer("clients", "connected_clients");
    for (std::size_t i = 1; i < kQueues; ++i) {
        hub.wait(poll_on("q" + std::to_string(i), "", new_answer(), far()));
    }
    ASSERT_TRUE(eventually([&] {
        const LongPollStats s = hub.stats();
        return s.waiters.subscriptions >= kQueues && s.fetching == 0;
    }));
    EXPECT_EQ(thread_count(), threads);
    // A constant, whatever the number of queues: the pool may hold two connections more, as
    // both workers fetched while the subscriber read TIME through it.
    EXPECT_LE(server().info_integer("clients", "connected_clients"), clients + 2);
    EXPECT_EQ(shard_channels(), static_cast<long long>(kQueues));

    hub.stop();
    const LongPollStats s = hub.stats();
    EXPECT_EQ(s.queues, 0U);
    EXPECT_EQ(s.released, kQueues);
    EXPECT_EQ(s.waiting, 0U);
    for (const auto& answer : answers_) EXPECT_TRUE(answer->answered());
    ASSERT_TRUE(eventually([&] { return shard_channels() == 0; }));
}

TEST_F(LongPollTest, AFailedFetchAnswersWithItsError) {
    LongPollHub& hub = this->hub();
    server().kill();
    Answer& answer = new_answer();
    hub.wait(request(answer, far()));
    const auto got = answer.await();
    ASSERT_TRUE(got);
    EXPECT_TRUE(got->error);
}

}  // namespace
}  // namespace delayq::test
