#include "service/worker_pool.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace delayq::server::service {

WorkerPool::WorkerPool(std::size_t threads, std::size_t capacity) : capacity_(capacity) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
        threads_.emplace_back([this] { work(); });
    }
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_post(std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ || tasks_.size() >= capacity_) return false;
        tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
    return true;
}

void WorkerPool::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && threads_.empty()) return;
        stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) {
        if (t.joinable()) t.join();
    }
    threads_.clear();
}

std::size_t WorkerPool::waiting() const {
    std::lock_guard lock(mutex_);
    return tasks_.size();
}

std::size_t WorkerPool::running() const {
    std::lock_guard lock(mutex_);
    return running_;
}

void WorkerPool::work() {
    std::unique_lock lock(mutex_);
    while (true) {
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, and nothing left to run
        std::function<void()> task = std::move(tasks_.front());
        tasks_.pop_front();
        ++running_;
        lock.unlock();
        try {
            task();
        } catch (const std::exception& e) {
            spdlog::error("http: a worker task threw: {}", e.what());
        } catch (...) {
            spdlog::error("http: a worker task threw");
        }
        lock.lock();
        --running_;
    }
}

}  // namespace delayq::server::service
