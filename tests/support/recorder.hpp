#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "delayq/delayq.hpp"

namespace delayq::test {

struct DeliveryRecord {
    std::string id;
    std::string payload;
    int attempt = 0;
    std::uint64_t token = 0;
    std::int64_t due_ms = 0;
    std::int64_t delivered_at_ms = 0;
    int consumer = 0;
};

// Collects what handlers and hooks saw, from any thread, and lets the test wait for it.
template <class T>
class Collector {
  public:
    void add(T item) {
        {
            std::lock_guard lock(mutex_);
            items_.push_back(std::move(item));
        }
        cv_.notify_all();
    }

    // Waits until at least n items arrived; false on timeout.
    bool wait_for(std::size_t n, std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, deadline, [&] { return items_.size() >= n; });
    }

    std::vector<T> items() const {
        std::lock_guard lock(mutex_);
        return items_;
    }

    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return items_.size();
    }

  private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<T> items_;
};

inline DeliveryRecord record_of(const Delivery& d, int consumer = 0) {
    return DeliveryRecord{d.id(),
                          d.payload(),
                          d.attempt(),
                          d.lease().token(),
                          d.due().time_since_epoch().count(),
                          d.delivered_at().time_since_epoch().count(),
                          consumer};
}

// A one-shot flag a test thread and a handler can wait on.
class Latch {
  public:
    void open() {
        {
            std::lock_guard lock(mutex_);
            open_ = true;
        }
        cv_.notify_all();
    }

    bool wait(std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, deadline, [&] { return open_; });
    }

    bool is_open() const {
        std::lock_guard lock(mutex_);
        return open_;
    }

  private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

}  // namespace delayq::test
