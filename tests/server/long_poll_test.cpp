// The long-poll hub: polls on one queue share its waiter, so a send wakes a waiting poll, idle
// polls cost Redis what one does, and leases nobody can be answered with are released. A queue's
// waiter is released when idle, the waiters and polls are capped in total and per token, and
// any number of queues cost a constant number of threads and connections and stop in one step.
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

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace delayq::server;
using namespace delayq::server::runtime;
using SteadyClock = std::chrono::steady_clock;

// The server's worker pool, as far as the hub sees it.
class Workers {
  public:
    explicit Workers(std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { run(); });
    }
    ~Workers() {
        {
            std::lock_guard lock(mu_);
            done_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_) t.join();
    }
    Workers(const Workers&) = delete;
    Workers& operator=(const Workers&) = delete;

    Post post() {
        return [this](std::function<void()> task) {
            {
                std::lock_guard lock(mu_);
                tasks_.push_back(std::move(task));
            }
            cv_.notify_one();
        };
    }

  private:
    void run() {
        std::unique_lock lock(mu_);
        for (;;) {
            cv_.wait(lock, [this] { return done_ || !tasks_.empty(); });
            if (tasks_.empty()) return;
            auto task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    bool done_ = false;
    std::vector<std::thread> threads_;
};

// One poll's answer, once it came.
class Answer {
  public:
    explicit Answer(bool answerable = true) : answerable_(answerable) {}
    PollDone done() {
        return [this](PollAnswer a) {
            std::lock_guard lock(mu_);
            answer_ = std::move(a);
            answered_at_ = SteadyClock::now();
            cv_.notify_all();
            return answerable_;
        };
    }
    std::optional<PollAnswer> await(std::chrono::milliseconds deadline = kEventDeadline) {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, deadline, [this] { return answer_.has_value(); });
        return answer_;
    }
    bool answered() {
        std::lock_guard lock(mu_);
        return answer_.has_value();
    }
    SteadyClock::time_point answered_at() {
        std::lock_guard lock(mu_);
        return answered_at_;
    }

  private:
    bool answerable_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::optional<PollAnswer> answer_;
    SteadyClock::time_point answered_at_;
};

// No safety net: only a due time, a wake signal or a subscription make the waiters fire.
LongPollOptions no_idle_check() { return {.waiter = {.idle_check = std::chrono::hours(1)}}; }

class LongPollTest : public RedisTest {
  protected:
    PollRequest request(Answer& answer, SteadyClock::time_point deadline, std::size_t max = 1) {
        return {"q", "", max, std::chrono::seconds(30), deadline, answer.done()};
    }
    static SteadyClock::time_point far() { return SteadyClock::now() + kEventDeadline; }

    // Awaits the hub at rest: the waiter subscribed and fired, the hub acted on every firing
    // (a waiter counts a firing before it calls the hub), no fetch under way.
    static void await_quiet(LongPollHub& hub, std::size_t waiting) {
        ASSERT_TRUE(eventually([&] {
            const LongPollStats s = hub.stats();
            return s.waiters.subscriptions >= 1 && s.waiters.fired >= 1 &&
                   s.fires == s.waiters.fired && s.fetching == 0 && s.waiting == waiting;
        }));
    }

    // Commands Redis has run, INFO itself left out.
    long long commands_run() {
        std::istringstream lines(server().command({"INFO", "commandstats"}).str);
        long long total = 0;
        for (std::string line; std::getline(lines, line);) {
            if (!line.starts_with("cmdstat_") || line.starts_with("cmdstat_info:")) continue;
            const auto at = line.find("calls=");
            total += std::stoll(line.substr(at + 6));
        }
        return total;
    }

    long long shard_channels() {
        return static_cast<long long>(
            server().command({"PUBSUB", "SHARDCHANNELS"}).elements.size());
    }

    // Made before the hub and destroyed after it: the hub's stop answers them.
    Answer& new_answer(bool answerable = true) {
        answers_.push_back(std::make_unique<Answer>(answerable));
        return *answers_.back();
    }
    LongPollHub& hub() {
        if (!hub_) hub_.emplace(client(), workers_.post(), no_idle_check());
        return *hub_;
    }

    Workers workers_{2};
    std::deque<std::unique_ptr<Answer>> answers_;
    std::optional<LongPollHub> hub_;
};

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
