#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace delayq::server::service {

// Threads for the library's blocking calls, which must never run on an I/O thread. Bounded: a
// task beyond the queue's capacity is refused (the route answers 429), so that a burst cannot
// pile up unbounded memory and latency behind a slow Redis.
class WorkerPool {
  public:
    WorkerPool(std::size_t threads, std::size_t capacity);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // false when `capacity` tasks already wait, or the pool stopped. A task must not throw.
    bool try_post(std::function<void()> task);
    // Runs what is queued, then ends the threads. Idempotent.
    void stop();

    std::size_t waiting() const;  // queued, not yet started
    std::size_t running() const;

  private:
    void work();

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    std::size_t capacity_;
    std::size_t running_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace delayq::server::service
