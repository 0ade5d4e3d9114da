// QueueOptions::send_linger: asynchronous sends due well ahead wait a little for company and
// share one script call; a message that must go takes the waiting ones with it.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/command_calls.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using SendLingerTest = RedisTest;

// The send script's calls: each runs one ZADD of its new members, and nothing else here does.
long long send_calls(const RedisServer& server) { return command_calls(server, "zadd"); }

// A linger far longer than the 10 ms between the sends below.
QueueOptions lingering_a_second() { return QueueOptions{.send_linger = 1s}; }

// Sends `delays` with send_async, 10 ms apart, and waits for every answer; returns the calls.
long long calls_for(const RedisServer& server, Queue& q, const std::vector<Duration>& delays) {
    const long long before = send_calls(server);
    std::vector<std::future<SendResult>> answers;
    for (const Duration d : delays) {
        if (!answers.empty()) std::this_thread::sleep_for(10ms);
        answers.push_back(q.send_async("x", {.delay = d}));
    }
    for (auto& a : answers) a.get();
    return send_calls(server) - before;
}

TEST_F(SendLingerTest, SendsDueAnHourAheadShareOneCall) {
    Queue q = queue("q", lingering_a_second());
    EXPECT_EQ(calls_for(server(), q, {1h, 1h, 1h}), 1);
    EXPECT_EQ(admin(q).stats().scheduled, 3u);
}

TEST_F(SendLingerTest, AMessageDueNowTakesTheWaitingOnesAlongAndLaterOnesWaitAgain) {
    Queue q = queue("q", lingering_a_second());
    EXPECT_EQ(calls_for(server(), q, {1h, 0ms}), 1);
    EXPECT_EQ(calls_for(server(), q, {1h, 1h}), 1);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.scheduled + st.ready, 4u);
}

// One message due in an hour through each handle, 10 ms apart; returns the calls they took.
long long calls_for_two(const RedisServer& server, Queue& first, Queue& second) {
    const long long before = send_calls(server);
    std::future<SendResult> a = first.send_async("a", {.delay = 1h});
    std::this_thread::sleep_for(10ms);
    std::future<SendResult> b = second.send_async("b", {.delay = 1h});
    a.get();
    b.get();
    return send_calls(server) - before;
}

TEST_F(SendLingerTest, HandlesOfOneQueueShareTheirSendLine) {
    // Client::queue twice, as two parts of a program (or a handle per request) would call it:
    // while either lives, both send through one line, so their messages share calls.
    Queue first = queue("q", lingering_a_second());
    Queue second = queue("q", lingering_a_second());
    EXPECT_EQ(calls_for_two(server(), first, second), 1);

    // A handle with options of its own keeps a line of its own.
    QueueOptions own = lingering_a_second();
    own.max_payload_bytes = 1000;
    Queue third = queue("q", own);
    EXPECT_EQ(calls_for_two(server(), first, third), 2);
    EXPECT_EQ(admin(first).stats().scheduled, 4u);
}

TEST_F(SendLingerTest, ADueTimeInTheYear9999MayWaitLikeAnyOther) {
    // Whether it may wait is judged in milliseconds: in nanoseconds, a time past 2262 overflows.
    Queue q = queue("q", lingering_a_second());
    const TimePoint last = from_ms(253402300799999);
    EXPECT_EQ(q.send_async("x", {.at = last}).get().due, last);
}

TEST_F(SendLingerTest, ALingerOverASecondOrBelowZeroIsRefused) {
    EXPECT_THROW(queue("a", QueueOptions{.send_linger = 1001ms}), InvalidArgument);
    EXPECT_THROW(queue("b", QueueOptions{.send_linger = -1ms}), InvalidArgument);
}

}  // namespace
}  // namespace delayq::test
