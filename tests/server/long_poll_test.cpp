// The long-poll hub: polls on one queue share its waiter, so a send wakes a waiting poll, idle
// polls cost Redis what one does, and leases nobody can be answered with are released (its
// bounds: long_poll_limits_test.cpp).
#include "runtime/long_poll.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "server/support/long_poll_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using namespace delayq::server::runtime;

TEST_F(LongPollTest, ASendWakesAWaitingPollBeforeItsDeadline) {
    LongPollHub& hub = this->hub();
    Answer& answer = new_answer();
    hub.wait(request(answer, far()));
    await_quiet(hub, 1);
    EXPECT_FALSE(answer.answered());
    Queue q = queue();
    const SendResult sent = q.send("hello");
    const auto got = answer.await();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->deliveries.size(), 1U);  // an answer at the deadline would be empty
    EXPECT_EQ(got->deliveries[0].id(), sent.id);
    EXPECT_EQ(got->deliveries[0].payload(), "hello");
    EXPECT_EQ(admin(q).stats().in_flight, 1U);
}

TEST_F(LongPollTest, APollWithNothingDueIsAnsweredEmptyAtItsDeadline) {
    Queue q = queue();
    q.send("later", {.delay = std::chrono::hours(1)});
    LongPollHub& hub = this->hub();
    Answer& answer = new_answer();
    const auto deadline = SteadyClock::now() + std::chrono::milliseconds(300);
    hub.wait(request(answer, deadline));
    const auto got = answer.await();
    ASSERT_TRUE(got);
    EXPECT_TRUE(got->deliveries.empty());
    EXPECT_FALSE(got->error);
    EXPECT_GE(answer.answered_at(), deadline);
    EXPECT_EQ(hub.stats().waiting, 0U);
    EXPECT_EQ(admin(q).stats().scheduled, 1U);
}

TEST_F(LongPollTest, AMessageAlreadyDueIsLeasedAtOnce) {
    Queue q = queue();
    send_many(q, 3);
    LongPollHub& hub = this->hub();
    Answer& answer = new_answer();
    hub.wait(request(answer, far(), 10));
    const auto got = answer.await();
    ASSERT_TRUE(got);
    EXPECT_EQ(got->deliveries.size(), 3U);
}

TEST_F(LongPollTest, OneSendWakesOneOfManyPolls) {
    LongPollHub& hub = this->hub();
    std::vector<Answer*> answers;
    for (int i = 0; i < 3; ++i) {
        answers.push_back(&new_answer());
        hub.wait(request(*answers.back(), far()));
    }
    await_quiet(hub, 3);
    Queue q = queue();
    q.send("one");
    ASSERT_TRUE(answers[0]->await());  // the oldest poll is served first
    ASSERT_TRUE(eventually([&] { return hub.stats().fetching == 0; }));
    EXPECT_EQ(answers[0]->await()->deliveries.size(), 1U);
    EXPECT_EQ(hub.stats().waiting, 2U);
    EXPECT_FALSE(answers[1]->answered());
    EXPECT_FALSE(answers[2]->answered());
}

// Polls waiting together share one fetch: a send that wakes them costs one script call, and the
// messages go out oldest poll first, each taking up to its max.
TEST_F(LongPollTest, PollsWaitingTogetherShareOneFetch) {
    LongPollHub& hub = this->hub();
    std::vector<Answer*> answers;
    for (std::size_t max : {2U, 3U, 2U}) {
        answers.push_back(&new_answer());
        hub.wait(request(*answers.back(), far(), max));
    }
    await_quiet(hub, 3);
    const std::uint64_t fetches_before = hub.stats().fetches;
    Queue q = queue();
    std::vector<Message> batch;
    for (int i = 0; i < 6; ++i) batch.push_back(Message{"m" + std::to_string(i), {}});
    q.send_batch(batch);
    std::vector<std::string> got;
    const std::vector<std::size_t> expected = {2, 3, 1};
    for (std::size_t i = 0; i < answers.size(); ++i) {
        const auto answer = answers[i]->await();
        ASSERT_TRUE(answer) << i;
        ASSERT_EQ(answer->deliveries.size(), expected[i]) << i;
        for (const Delivery& d : answer->deliveries) got.push_back(d.payload());
    }
    EXPECT_EQ(got, (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4", "m5"}));
    ASSERT_TRUE(eventually([&] { return hub.stats().fetching == 0; }));
    EXPECT_EQ(hub.stats().fetches, fetches_before + 1);
    EXPECT_EQ(hub.stats().waiting, 0U);
}

TEST_F(LongPollTest, AHundredIdlePollsCostRedisNoMoreThanOne) {
    LongPollHub& hub = this->hub();
    std::vector<Answer*> answers;
    answers.push_back(&new_answer());
    hub.wait(request(*answers.back(), far()));
    await_quiet(hub, 1);
    const long long with_one = commands_run();
    const std::uint64_t fetches_with_one = hub.stats().fetches;
    for (int i = 0; i < 99; ++i) {
        answers.push_back(&new_answer());
        hub.wait(request(*answers.back(), far()));
    }
    await_quiet(hub, 100);
    EXPECT_EQ(commands_run(), with_one);
    EXPECT_EQ(hub.stats().fetches, fetches_with_one);
    EXPECT_EQ(hub.stats().queues, 1U);
    // And still one send wakes them: the first poll gets it.
    queue().send("m");
    const auto got = answers[0]->await();
    ASSERT_TRUE(got);
    EXPECT_EQ(got->deliveries.size(), 1U);
}

TEST_F(LongPollTest, StopAnswersWaitingPollsEmpty) {
    LongPollHub& hub = this->hub();
    Answer& answer = new_answer();
    hub.wait(request(answer, far()));
    await_quiet(hub, 1);
    hub.stop();
    const auto got = answer.await(std::chrono::milliseconds(0));
    ASSERT_TRUE(got);
    EXPECT_TRUE(got->deliveries.empty());
    Answer& late = new_answer();
    hub.wait(request(late, far()));
    ASSERT_TRUE(late.await(std::chrono::milliseconds(0)));
}

TEST_F(LongPollTest, LeasesOfAPollThatCannotBeAnsweredAreReleased) {
    Queue q = queue();
    q.send("m");
    LongPollHub& hub = this->hub();
    Answer& gone = new_answer(false);  // its connection closed
    hub.wait(request(gone, far()));
    ASSERT_TRUE(gone.await());
    EXPECT_EQ(gone.await()->deliveries.size(), 1U);
    ASSERT_TRUE(eventually([&] { return admin(q).stats().totals.released == 1; }));
    const QueueStats s = admin(q).stats();
    EXPECT_EQ(s.in_flight, 0U);
    EXPECT_EQ(s.ready, 1U);
    Answer& next = new_answer();
    hub.wait(request(next, far()));
    const auto got = next.await();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->deliveries.size(), 1U);
    EXPECT_EQ(got->deliveries[0].attempt(), 1);  // a release does not count the attempt
}

TEST_F(LongPollTest, ACancelledPollIsNeverAnswered) {
    LongPollHub& hub = this->hub();
    Answer& cancelled = new_answer();
    Answer& other = new_answer();
    const auto id = hub.wait(request(cancelled, far()));
    await_quiet(hub, 1);
    hub.cancel(id);
    hub.wait(request(other, far()));
    Queue q = queue();
    q.send("m");
    ASSERT_TRUE(other.await());
    EXPECT_EQ(other.await()->deliveries.size(), 1U);
    EXPECT_FALSE(cancelled.answered());
}

TEST_F(LongPollTest, BadRequestsAreRefused) {
    LongPollHub& hub = this->hub();
    Answer& answer = new_answer();
    EXPECT_THROW(hub.wait(request(answer, far(), 0)), InvalidArgument);
    EXPECT_THROW(hub.wait(request(answer, far(), 1001)), InvalidArgument);
    EXPECT_THROW(hub.wait({"bad name", "", 1, std::chrono::seconds(1), far(), answer.done()}),
                 InvalidArgument);
    EXPECT_EQ(hub.stats().waiting, 0U);
    EXPECT_EQ(hub.stats().queues, 0U);
}

}  // namespace
}  // namespace delayq::test
