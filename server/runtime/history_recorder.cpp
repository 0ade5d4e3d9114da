#include "runtime/history_recorder.hpp"

#include <spdlog/spdlog.h>

#include <vector>

namespace delayq::server::runtime {

HistoryRecorder::HistoryRecorder(Client client, HistoryRecorderOptions options)
    : client_(std::move(client)), options_(options) {
    thread_ = std::thread([this] { run(); });
}

HistoryRecorder::~HistoryRecorder() { stop(); }

void HistoryRecorder::stop() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool HistoryRecorder::watch(const std::string& queue) {
    if (renew(queue)) return true;
    {
        std::lock_guard lock(mu_);
        if (watched_.size() >= options_.max_queues) return false;
    }
    QueueStats stats;
    try {
        stats = client_.admin(queue).stats();
    } catch (const std::exception& e) {
        spdlog::warn("history of {}: reading its totals failed: {}", queue, e.what());
        return false;
    }
    return start(queue, stats);
}

bool HistoryRecorder::watch(const std::string& queue, const QueueStats& stats) {
    return renew(queue) || start(queue, stats);
}

bool HistoryRecorder::renew(const std::string& queue) {
    std::lock_guard lock(mu_);
    const auto it = watched_.find(queue);
    if (it == watched_.end()) return false;
    it->second = std::chrono::steady_clock::now() + options_.keep_watching;
    return true;
}

bool HistoryRecorder::start(const std::string& queue, const QueueStats& stats) {
    // A name nobody sent to: recording it would cost Redis a read a second for nothing.
    if (stats.totals.sent == 0) return false;
    std::unique_lock lock(mu_);
    // Checked under the lock: other requests may have filled the last places meanwhile.
    if (watched_.size() >= options_.max_queues && !watched_.contains(queue)) return false;
    const auto until = std::chrono::steady_clock::now() + options_.keep_watching;
    const bool first = watched_.insert_or_assign(queue, until).second;
    lock.unlock();
    // A first request already gets its period's point, if no server sampled it yet.
    if (first) record(queue);
    return true;
}

std::size_t HistoryRecorder::watched() const {
    std::lock_guard lock(mu_);
    return watched_.size();
}

void HistoryRecorder::record(const std::string& queue) {
    try {
        client_.admin(queue).record_history();
        samples_.fetch_add(1);
    } catch (const std::exception& e) {
        spdlog::warn("history of {}: recording a point failed: {}", queue, e.what());
    }
}

void HistoryRecorder::run() {
    auto next = std::chrono::steady_clock::now() + options_.interval;
    std::unique_lock lock(mu_);
    while (!stopping_) {
        if (cv_.wait_until(lock, next, [this] { return stopping_; })) break;
        // Steps of `interval` from the start, so that a slow call does not make this server
        // skip periods.
        next += options_.interval;
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + options_.interval;
        std::vector<std::string> queues;
        for (auto it = watched_.begin(); it != watched_.end();) {
            if (it->second < now) {
                it = watched_.erase(it);
            } else {
                queues.push_back(it->first);
                ++it;
            }
        }
        lock.unlock();
        for (const auto& q : queues) record(q);
        lock.lock();
    }
}

}  // namespace delayq::server::runtime
