// Threads sending to one Queue at the same time share script calls (group commit). These tests
// check that sharing changes nothing a single caller can observe.
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using SendCoalescingTest = RedisTest;

constexpr int kThreads = 16;

// Runs body(thread_index) on kThreads threads at once.
template <class Body>
void on_each_thread(Body body) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
    for (auto& t : threads) t.join();
}

TEST_F(SendCoalescingTest, ConcurrentSendsAllLandWithDistinctIds) {
    Queue q = queue();
    constexpr int kPerThread = 200;
    std::vector<std::vector<SendResult>> results(kThreads);
    on_each_thread([&](int t) {
        for (int i = 0; i < kPerThread; ++i) {
            results[t].push_back(q.send("t" + std::to_string(t) + "-" + std::to_string(i)));
        }
    });
    std::set<std::string> ids;
    for (const auto& per_thread : results) {
        for (const auto& r : per_thread) {
            EXPECT_FALSE(r.duplicate);
            ids.insert(r.id);
        }
        // One thread's sends keep their order: its ids increase.
        for (std::size_t i = 1; i < per_thread.size(); ++i) {
            EXPECT_LT(per_thread[i - 1].id, per_thread[i].id);
        }
    }
    EXPECT_EQ(ids.size(), std::size_t{kThreads * kPerThread});
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), kThreads * kPerThread);
    EXPECT_EQ(admin(q).stats().totals.sent, std::uint64_t{kThreads * kPerThread});
}

TEST_F(SendCoalescingTest, OneCallersRefusedMessageDoesNotFailTheOthers) {
    Queue q = queue();
    // Only the script can see that this expiry (1 s after the send) precedes the due time.
    const TimePoint late = TimePoint(Duration(server().time_ms())) + std::chrono::hours(1);
    std::atomic<int> refused{0};
    std::atomic<int> sent{0};
    on_each_thread([&](int t) {
        for (int i = 0; i < 50; ++i) {
            try {
                if (t % 2 == 0) {
                    q.send("bad", {.at = late, .expire_after = std::chrono::seconds(1)});
                } else {
                    q.send("good");
                }
                ++sent;
            } catch (const InvalidArgument&) {
                ++refused;
            }
        }
    });
    EXPECT_EQ(refused.load(), kThreads / 2 * 50);
    EXPECT_EQ(sent.load(), kThreads / 2 * 50);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), kThreads / 2 * 50);
}

TEST_F(SendCoalescingTest, ConcurrentSendsOfOneIdCreateOneMessage) {
    Queue q = queue();
    std::atomic<int> created{0};
    on_each_thread([&](int) {
        if (!q.send("same", {.id = "order-1"}).duplicate) ++created;
    });
    EXPECT_EQ(created.load(), 1);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

}  // namespace
}  // namespace delayq::test
