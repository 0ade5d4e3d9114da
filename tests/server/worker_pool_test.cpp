// The worker pool shared between tokens: a token's share is capped, and tokens with queued
// work take the workers in turn.
#include "runtime/worker_pool.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::server::runtime {
namespace {

// Holds the one worker until opened.
class Gate {
  public:
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        cv_.notify_all();
    }
    void pass() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return open_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

// Until the pool's one worker has taken its first task.
bool await_running(const WorkerPool& pool) {
    return delayq::test::eventually([&] { return pool.running() == 1; });
}

TEST(WorkerPoolTest, ATokenGetsItsShareAndTokensTakeTheWorkersInTurn) {
    WorkerPool pool(1, 100, 3);
    Gate gate;
    std::mutex mutex;
    std::vector<std::string> ran;
    const auto task = [&](std::string name) {
        return [&, name] {
            if (name == "a1") gate.pass();
            std::lock_guard lock(mutex);
            ran.push_back(name);
        };
    };
    ASSERT_TRUE(pool.try_post("a", task("a1")));
    ASSERT_TRUE(await_running(pool));
    ASSERT_TRUE(pool.try_post("a", task("a2")));
    ASSERT_TRUE(pool.try_post("a", task("a3")));
    // a has its share queued or running: its fourth is refused, another token's is not.
    EXPECT_FALSE(pool.try_post("a", task("a4")));
    EXPECT_EQ(pool.refused().share_full, 1u);
    EXPECT_EQ(pool.refused().pool_full, 0u);
    ASSERT_TRUE(pool.try_post("b", task("b1")));
    // The server's own work (no token) has no share of its own.
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(pool.try_post(task("own" + std::to_string(i))));
    gate.open();
    pool.stop();
    // b's task went before a's third, which waited its turn behind it.
    const std::vector<std::string> expected = {"a1",   "a2",   "b1",   "own0", "a3",
                                               "own1", "own2", "own3", "own4"};
    EXPECT_EQ(ran, expected);
}

TEST(WorkerPoolTest, AFullQueueRefusesEveryToken) {
    WorkerPool pool(1, 2, 10);
    Gate gate;
    ASSERT_TRUE(pool.try_post("a", [&] { gate.pass(); }));
    // The running task is not queued: two more fit.
    ASSERT_TRUE(await_running(pool));
    ASSERT_TRUE(pool.try_post("a", [] {}));
    ASSERT_TRUE(pool.try_post("b", [] {}));
    EXPECT_FALSE(pool.try_post("c", [] {}));
    EXPECT_EQ(pool.refused().pool_full, 1u);
    gate.open();
    pool.stop();
    EXPECT_FALSE(pool.try_post("c", [] {}));
    EXPECT_EQ(pool.refused().pool_full, 1u) << "a stopped pool's refusals are not counted";
}

}  // namespace
}  // namespace delayq::server::runtime
