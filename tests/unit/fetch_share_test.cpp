// How the Consumers of one queue in one Client share their fetches (src/fetch_share.hpp): the
// rounds' interleavings driven step by step, which consumers on a live server reach only by
// chance. The consumers' behaviour on a server is in consumer_test.cpp.
#include "fetch_share.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <future>
#include <initializer_list>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
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

class FetchShareTest : public ::testing::Test {
  protected:
    // A consumer's fetch on a thread of its own, its clock fired before any round was sent.
    std::future<FetchShare::Share> ask(std::size_t want, Duration visibility = kVisibility) {
        return std::async(std::launch::async, [this, want, visibility] {
            return share_.fetch(want, visibility, trigger_, calls_.call());
        });
    }
    // A fetch that leads a round (its call then waits for the test's answer).
    std::future<FetchShare::Share> lead(std::size_t want) {
        const std::size_t before = calls_.made().size();
        auto f = ask(want);
        calls_.await_made(before + 1);
        return f;
    }
    // A round of ten in flight, answered full with the next due time reached (more is due), and
    // `wants` asking meanwhile: they wait for the next round.
    std::vector<std::future<FetchShare::Share>> behind_a_busy_round(
        std::initializer_list<std::pair<std::size_t, Duration>> wants) {
        auto first = lead(10);
        std::vector<std::future<FetchShare::Share>> out;
        for (const auto& [want, visibility] : wants) out.push_back(ask(want, visibility));
        await_waiting(share_, wants.size());
        calls_.answer_next(answer(10, 1000, 1000));
        EXPECT_EQ(first.get().result.deliveries.size(), 10U);
        return out;
    }

    FetchShare share_;
    Calls calls_;
    std::uint64_t trigger_ = share_.rounds_sent();
};

TEST_F(FetchShareTest, AQuietRoundAnswersTheConsumersTriggeredBeforeItWithoutACall) {
    auto a = lead(10);
    auto b = ask(5);
    await_waiting(share_, 1);
    // Three leased, the next due time ahead of the round's now: nothing more due.
    calls_.answer_next(answer(3, 1000, 5000));

    const FetchShare::Share got_a = a.get();
    const FetchShare::Share got_b = b.get();
    EXPECT_TRUE(got_a.called);
    EXPECT_EQ(got_a.result.deliveries.size(), 3U);
    EXPECT_FALSE(got_b.called);
    EXPECT_TRUE(got_b.result.deliveries.empty());
    ASSERT_TRUE(got_b.result.next.has_value());
    EXPECT_EQ(*got_b.result.next, TimePoint(5000ms));
    EXPECT_EQ(got_b.result.now, TimePoint(1000ms));
    EXPECT_EQ(calls_.made().size(), 1U);
}

TEST_F(FetchShareTest, ATriggerAfterTheQuietRoundMakesACall) {
    auto a = ask(10);
    calls_.answer_next(answer(0, 1000, 5000));
    EXPECT_TRUE(a.get().called);
    // The clock fired after that round was sent: something new may be due.
    trigger_ = share_.rounds_sent();
    auto b = ask(4);
    calls_.answer_next(answer(2, 1001, 5000));
    const FetchShare::Share got_b = b.get();
    EXPECT_TRUE(got_b.called);
    EXPECT_EQ(got_b.result.deliveries.size(), 2U);
    ASSERT_EQ(calls_.made().size(), 2U);
    EXPECT_EQ(calls_.made()[1].want, 4U);
}

TEST_F(FetchShareTest, ConsumersWaitingDuringABusyRoundShareTheNextCall) {
    auto waiting = behind_a_busy_round({{5, kVisibility}, {7, kVisibility}});
    calls_.await_made(2);
    calls_.answer_next(answer(9, 1001, 1500));

    const FetchShare::Share got_b = waiting[0].get();
    const FetchShare::Share got_c = waiting[1].get();
    const auto made = calls_.made();
    ASSERT_EQ(made.size(), 2U);
    EXPECT_EQ(made[1].want, 12U);  // both wants in one call
    EXPECT_TRUE(got_b.called);
    EXPECT_TRUE(got_c.called);
    // Whoever led took its part first; nobody got more than it asked for, and nothing was left.
    EXPECT_LE(got_b.result.deliveries.size(), 5U);
    EXPECT_LE(got_c.result.deliveries.size(), 7U);
    EXPECT_EQ(got_b.result.deliveries.size() + got_c.result.deliveries.size(), 9U);
}

TEST_F(FetchShareTest, OtherVisibilitiesWaitForARoundOfTheirOwn) {
    auto waiting = behind_a_busy_round({{5, 60s}, {7, kVisibility}});
    calls_.await_made(2);
    calls_.answer_next(answer(0, 1001, 1001));
    calls_.await_made(3);
    calls_.answer_next(answer(0, 1002, 5000));
    for (auto& w : waiting) w.get();
    const auto made = calls_.made();
    ASSERT_EQ(made.size(), 3U);
    for (std::size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(made[i].want, made[i].visibility == kVisibility ? 7U : 5U);
    }
    EXPECT_NE(made[1].visibility, made[2].visibility);
}

TEST_F(FetchShareTest, ARoundsErrorReachesEveryConsumerInIt) {
    auto waiting = behind_a_busy_round({{5, kVisibility}, {7, kVisibility}});
    calls_.await_made(2);
    calls_.answer_next({}, true);
    EXPECT_THROW(waiting[0].get(), ConnectionError);
    EXPECT_THROW(waiting[1].get(), ConnectionError);
    // A failed round answers nobody later: the next fetch calls again.
    auto d = ask(1);
    calls_.answer_next(answer(1, 1002, 5000));
    EXPECT_TRUE(d.get().called);
    EXPECT_EQ(calls_.made().size(), 3U);
}

TEST_F(FetchShareTest, DeadLetterEventsGoToTheRoundsLeaderOnly) {
    auto waiting = behind_a_busy_round({{5, kVisibility}, {7, kVisibility}});
    calls_.await_made(2);
    FetchResult second = answer(2, 1001, 5000);
    second.dead_lettered.push_back(DeadLetterEvent{"q", "gone", "expired", 1});
    calls_.answer_next(second);
    const FetchShare::Share got_b = waiting[0].get();
    const FetchShare::Share got_c = waiting[1].get();
    // Reported once, by whichever of the two led the round.
    EXPECT_EQ(got_b.result.dead_lettered.size() + got_c.result.dead_lettered.size(), 1U);
    EXPECT_EQ(got_b.result.deliveries.size() + got_c.result.deliveries.size(), 2U);
}

}  // namespace
}  // namespace delayq::detail
