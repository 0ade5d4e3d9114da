#include "runtime/worker_pool.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace delayq::server::runtime {

WorkerPool::WorkerPool(std::size_t threads, std::size_t capacity, std::size_t share)
    : capacity_(capacity), share_(share) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
        threads_.emplace_back([this] { work(); });
    }
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_post(std::string_view principal, std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return false;
        if (queued_ >= capacity_) {
            ++refused_.pool_full;
            return false;
        }
        auto [it, added] = shares_.try_emplace(std::string(principal));
        Share& share = it->second;
        if (!principal.empty() && share.tasks.size() + share.running >= share_) {
            if (added) shares_.erase(it);
            ++refused_.share_full;
            return false;
        }
        if (share.tasks.empty()) turns_.push_back(it->first);
        share.tasks.push_back(std::move(task));
        ++queued_;
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
    return queued_;
}

WorkerPool::Refused WorkerPool::refused() const {
    std::lock_guard lock(mutex_);
    return refused_;
}

std::size_t WorkerPool::running() const {
    std::lock_guard lock(mutex_);
    return running_;
}

void WorkerPool::work() {
    std::unique_lock lock(mutex_);
    while (true) {
        ready_.wait(lock, [this] { return stopping_ || queued_ > 0; });
        if (queued_ == 0) return;  // stopping, and nothing left to run
        const std::string principal = std::move(turns_.front());
        turns_.pop_front();
        Share& share = shares_.at(principal);
        std::function<void()> task = std::move(share.tasks.front());
        share.tasks.pop_front();
        if (!share.tasks.empty()) turns_.push_back(principal);  // its next task waits its turn
        --queued_;
        ++share.running;
        ++running_;
        lock.unlock();
        try {
            task();
        } catch (const std::exception& e) {
            spdlog::error("http: a worker task threw: {}", e.what());
        } catch (...) {
            spdlog::error("http: a worker task threw");
        }
        task = nullptr;  // what it holds goes outside the lock, and before the count says so
        lock.lock();
        --running_;
        // Looked up again: other principals came and went while the task ran.
        const auto it = shares_.find(principal);
        if (--it->second.running == 0 && it->second.tasks.empty()) shares_.erase(it);
    }
}

}  // namespace delayq::server::runtime
