#pragma once

// What the long-poll hub's tests share: the worker pool as the hub sees it, an answer a test
// can wait for, and a hub on a real Redis.
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

#include "runtime/long_poll.hpp"
#include "support/fixture.hpp"

namespace delayq::test {

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
    server::runtime::PollDone done() {
        return [this](server::runtime::PollAnswer a) {
            std::lock_guard lock(mu_);
            answer_ = std::move(a);
            answered_at_ = SteadyClock::now();
            cv_.notify_all();
            return answerable_;
        };
    }
    std::optional<server::runtime::PollAnswer> await(
        std::chrono::milliseconds deadline = kEventDeadline) {
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
    std::optional<server::runtime::PollAnswer> answer_;
    SteadyClock::time_point answered_at_;
};

// No safety net: only a due time, a wake signal or a subscription make the waiters fire.
server::runtime::LongPollOptions no_idle_check() {
    return {.waiter = {.idle_check = std::chrono::hours(1)}};
}

class LongPollTest : public RedisTest {
  protected:
    server::runtime::PollRequest request(Answer& answer, SteadyClock::time_point deadline,
                                         std::size_t max = 1) {
        return {"q", "", max, std::chrono::seconds(30), deadline, answer.done()};
    }
    static SteadyClock::time_point far() { return SteadyClock::now() + kEventDeadline; }

    // Awaits the hub at rest: the waiter subscribed and fired, the hub acted on every firing
    // (a waiter counts a firing before it calls the hub), no fetch under way.
    static void await_quiet(server::runtime::LongPollHub& hub, std::size_t waiting) {
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
    server::runtime::LongPollHub& hub() {
        if (!hub_) hub_.emplace(client(), workers_.post(), no_idle_check());
        return *hub_;
    }

    Workers workers_{2};
    std::deque<std::unique_ptr<Answer>> answers_;
    std::optional<server::runtime::LongPollHub> hub_;
};

}  // namespace delayq::test
