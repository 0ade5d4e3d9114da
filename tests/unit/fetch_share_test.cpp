// How the Consumers of one queue in one Client share their fetches (src/fetch_share.hpp): the
// rounds' interleavings driven step by step, which consumers on a live server reach only by
// chance. The consumers' behaviour on a server is in consumer_test.cpp.
#include "fetch_share.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

using namespace std::chrono_literals;

constexpr Duration kVisibility = 30s;

FetchResult answer(std::size_t leases, std::int64_t now_ms, std::int64_t next_ms) {
    FetchResult r;
    r.now = TimePoint(std::chrono::milliseconds(now_ms));
    r.next = TimePoint(std::chrono::milliseconds(next_ms));
    for (std::size_t i = 0; i < leases; ++i) {
        const std::string id = "m" + std::to_string(i);
        r.deliveries.emplace_back("q", Lease(id, i + 1), "payload", 1, 25, r.now, r.now);
    }
    return r;
}

// The calls rounds make, each held open until the test answers it.
class Calls {
  public:
    struct Made {
        std::size_t want;
        Duration visibility;
    };

    FetchShare::Call call() {
        return [this](std::size_t want, Duration visibility) {
            std::unique_lock lock(mutex_);
            const std::size_t index = made_.size();
            made_.push_back({want, visibility});
            cv_.notify_all();
            cv_.wait(lock, [&] { return answers_.size() > index; });
            if (answers_[index].error) throw ConnectionError("the connection broke");
            return answers_[index].result;
        };
    }
    // Waits until `n` calls were made.
    void await_made(std::size_t n) {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return made_.size() >= n; });
    }
    // Answers the next call.
    void answer_next(FetchResult r, bool error = false) {
        std::lock_guard lock(mutex_);
        answers_.push_back({std::move(r), error});
        cv_.notify_all();
    }
    std::vector<Made> made() {
        std::lock_guard lock(mutex_);
        return made_;
    }

  private:
    struct Answer {
        FetchResult result;
        bool error;
    };
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<Made> made_;
    std::vector<Answer> answers_;
};

void await_waiting(const FetchShare& share, std::size_t n) {
    while (share.waiting() < n) std::this_thread::yield();
}

TEST(FetchShareTest, AQuietRoundAnswersTheConsumersTriggeredBeforeItWithoutACall) {
    FetchShare share;
    Calls calls;
    const std::uint64_t trigger = share.rounds_sent();
    auto a = std::async(std::launch::async,
                        [&] { return share.fetch(10, kVisibility, trigger, calls.call()); });
    calls.await_made(1);
    auto b = std::async(std::launch::async,
                        [&] { return share.fetch(5, kVisibility, trigger, calls.call()); });
    await_waiting(share, 1);
    // Three leased, the next due time ahead of the round's now: nothing more due.
    calls.answer_next(answer(3, 1000, 5000));

    const FetchShare::Share got_a = a.get();
    const FetchShare::Share got_b = b.get();
    EXPECT_TRUE(got_a.called);
    EXPECT_EQ(got_a.result.deliveries.size(), 3U);
    EXPECT_FALSE(got_b.called);
    EXPECT_TRUE(got_b.result.deliveries.empty());
    ASSERT_TRUE(got_b.result.next.has_value());
    EXPECT_EQ(*got_b.result.next, TimePoint(5000ms));
    EXPECT_EQ(got_b.result.now, TimePoint(1000ms));
    EXPECT_EQ(calls.made().size(), 1U);
}

TEST(FetchShareTest, ATriggerAfterTheQuietRoundMakesACall) {
    FetchShare share;
    Calls calls;
    auto a = std::async(std::launch::async, [&] {
        return share.fetch(10, kVisibility, share.rounds_sent(), calls.call());
    });
    calls.answer_next(answer(0, 1000, 5000));
    EXPECT_TRUE(a.get().called);
    // The clock fired after that round was sent: something new may be due.
    const std::uint64_t trigger = share.rounds_sent();
    auto b = std::async(std::launch::async,
                        [&] { return share.fetch(4, kVisibility, trigger, calls.call()); });
    calls.answer_next(answer(2, 1001, 5000));
    const FetchShare::Share got_b = b.get();
    EXPECT_TRUE(got_b.called);
    EXPECT_EQ(got_b.result.deliveries.size(), 2U);
    ASSERT_EQ(calls.made().size(), 2U);
    EXPECT_EQ(calls.made()[1].want, 4U);
}

TEST(FetchShareTest, ConsumersWaitingDuringABusyRoundShareTheNextCall) {
    FetchShare share;
    Calls calls;
    const std::uint64_t trigger = share.rounds_sent();
    auto a = std::async(std::launch::async,
                        [&] { return share.fetch(10, kVisibility, trigger, calls.call()); });
    calls.await_made(1);
    auto b = std::async(std::launch::async,
                        [&] { return share.fetch(5, kVisibility, trigger, calls.call()); });
    auto c = std::async(std::launch::async,
                        [&] { return share.fetch(7, kVisibility, trigger, calls.call()); });
    await_waiting(share, 2);
    // A full round, the next due time reached: more is due, so the waiting ones need a call.
    calls.answer_next(answer(10, 1000, 1000));
    EXPECT_EQ(a.get().result.deliveries.size(), 10U);
    calls.await_made(2);
    calls.answer_next(answer(9, 1001, 1500));

    const FetchShare::Share got_b = b.get();
    const FetchShare::Share got_c = c.get();
    const auto made = calls.made();
    ASSERT_EQ(made.size(), 2U);
    EXPECT_EQ(made[1].want, 12U);  // both wants in one call
    EXPECT_TRUE(got_b.called);
    EXPECT_TRUE(got_c.called);
    // Whoever led took its part first; nobody got more than it asked for, and nothing was left.
    EXPECT_LE(got_b.result.deliveries.size(), 5U);
    EXPECT_LE(got_c.result.deliveries.size(), 7U);
    EXPECT_EQ(got_b.result.deliveries.size() + got_c.result.deliveries.size(), 9U);
}

TEST(FetchShareTest, OtherVisibilitiesWaitForARoundOfTheirOwn) {
    FetchShare share;
    Calls calls;
    const std::uint64_t trigger = share.rounds_sent();
    auto a = std::async(std::launch::async,
                        [&] { return share.fetch(10, kVisibility, trigger, calls.call()); });
    calls.await_made(1);
    auto b =
        std::async(std::launch::async, [&] { return share.fetch(5, 60s, trigger, calls.call()); });
    auto c = std::async(std::launch::async,
                        [&] { return share.fetch(7, kVisibility, trigger, calls.call()); });
    await_waiting(share, 2);
    calls.answer_next(answer(10, 1000, 1000));
    a.get();
    calls.await_made(2);
    calls.answer_next(answer(0, 1001, 1001));
    calls.await_made(3);
    calls.answer_next(answer(0, 1002, 5000));
    b.get();
    c.get();
    const auto made = calls.made();
    ASSERT_EQ(made.size(), 3U);
    for (std::size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(made[i].want, made[i].visibility == kVisibility ? 7U : 5U);
    }
    EXPECT_NE(made[1].visibility, made[2].visibility);
}

TEST(FetchShareTest, ARoundsErrorReachesEveryConsumerInIt) {
    FetchShare share;
    Calls calls;
    const std::uint64_t trigger = share.rounds_sent();
    auto a = std::async(std::launch::async,
                        [&] { return share.fetch(10, kVisibility, trigger, calls.call()); });
    calls.await_made(1);
    auto b = std::async(std::launch::async,
                        [&] { return share.fetch(5, kVisibility, trigger, calls.call()); });
    auto c = std::async(std::launch::async,
                        [&] { return share.fetch(7, kVisibility, trigger, calls.call()); });
    await_waiting(share, 2);
    calls.answer_next(answer(10, 1000, 1000));
    a.get();
    calls.await_made(2);
    calls.answer_next({}, true);
    EXPECT_THROW(b.get(), ConnectionError);
    EXPECT_THROW(c.get(), ConnectionError);
    // A failed round answers nobody later: the next fetch calls again.
    auto d = std::async(std::launch::async,
                        [&] { return share.fetch(1, kVisibility, trigger, calls.call()); });
    calls.answer_next(answer(1, 1002, 5000));
    EXPECT_TRUE(d.get().called);
    EXPECT_EQ(calls.made().size(), 3U);
}

TEST(FetchShareTest, DeadLetterEventsGoToTheRoundsLeaderOnly) {
    FetchShare share;
    Calls calls;
    const std::uint64_t trigger = share.rounds_sent();
    auto a = std::async(std::launch::async,
                        [&] { return share.fetch(10, kVisibility, trigger, calls.call()); });
    calls.await_made(1);
    auto b = std::async(std::launch::async,
                        [&] { return share.fetch(5, kVisibility, trigger, calls.call()); });
    auto c = std::async(std::launch::async,
                        [&] { return share.fetch(7, kVisibility, trigger, calls.call()); });
    await_waiting(share, 2);
    calls.answer_next(answer(10, 1000, 1000));
    a.get();
    calls.await_made(2);
    FetchResult second = answer(2, 1001, 5000);
    second.dead_lettered.push_back(DeadLetterEvent{"q", "gone", "expired", 1});
    calls.answer_next(second);
    const FetchShare::Share got_b = b.get();
    const FetchShare::Share got_c = c.get();
    // Reported once, by whichever of the two led the round.
    EXPECT_EQ(got_b.result.dead_lettered.size() + got_c.result.dead_lettered.size(), 1U);
    EXPECT_EQ(got_b.result.deliveries.size() + got_c.result.deliveries.size(), 2U);
}

}  // namespace
}  // namespace delayq::detail
