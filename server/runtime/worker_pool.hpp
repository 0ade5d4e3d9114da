#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace delayq::server::runtime {

// Threads for the library's blocking calls, which must never run on an I/O thread. Bounded: a
// task beyond the queue's capacity is refused (the route answers 429), so that a burst cannot
// pile up unbounded memory and latency behind a slow Redis. Shared fairly between tokens: each
// may have at most `share` tasks queued or running, and the workers take the tokens with queued
// tasks in turn, so that one busy token neither fills the queue nor goes before the others.
class WorkerPool {
  public:
    WorkerPool(std::size_t threads, std::size_t capacity, std::size_t share);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // false when `capacity` tasks already wait, `principal` has its share queued or running, or
    // the pool stopped. The empty principal (no auth file, or the server's own work) has no cap
    // of its own. A task must not throw.
    bool try_post(std::string_view principal, std::function<void()> task);
    bool try_post(std::function<void()> task) { return try_post({}, std::move(task)); }
    // Runs what is queued, then ends the threads. Idempotent.
    void stop();

    std::size_t waiting() const;  // queued, not yet started
    std::size_t running() const;
    // Tasks try_post refused while running (the routes answer 429), by which bound.
    struct Refused {
        std::uint64_t pool_full = 0;   // `capacity` tasks were waiting
        std::uint64_t share_full = 0;  // the token had its share queued or running
    };
    Refused refused() const;

  private:
    struct Share {
        std::deque<std::function<void()>> tasks;
        std::size_t running = 0;
    };
    void work();

    const std::size_t capacity_;
    const std::size_t share_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    // The principals with tasks queued or running; an entry goes when it has neither.
    std::unordered_map<std::string, Share> shares_;
    std::deque<std::string> turns_;  // principals with queued tasks, in the order they are served
    std::size_t queued_ = 0;
    std::size_t running_ = 0;
    bool stopping_ = false;
    Refused refused_{};
    std::vector<std::thread> threads_;
};

}  // namespace delayq::server::runtime
