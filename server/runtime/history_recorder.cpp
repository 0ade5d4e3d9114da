#include "runtime/history_recorder.hpp"

#include <spdlog/spdlog.h>

#include <vector>

namespace delayq::server::runtime {

HistoryRecorder::HistoryRecorder(Client client, History& history, HistoryRecorderOptions options)
    : client_(std::move(client)), history_(history), options_(options) {
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
    {
        std::lock_guard lock(mu_);
        const auto it = watched_.find(queue);
        if (it != watched_.end()) {
            it->second = std::chrono::steady_clock::now() + options_.keep_watching;
            return true;
        }
        if (watched_.size() >= options_.max_queues) return false;
    }
    QueueStats stats;
    try {
        stats = client_.admin(queue).stats();
    } catch (const std::exception& e) {
        spdlog::warn("history of {}: reading its totals failed: {}", queue, e.what());
        return false;
    }
    // A name nobody sent to: recording it would cost Redis a read a second for nothing.
    if (stats.totals.sent == 0) return false;
    std::lock_guard lock(mu_);
    // Checked again: other requests may have filled the last places while this one read.
    if (watched_.size() >= options_.max_queues && !watched_.contains(queue)) return false;
    const auto until = std::chrono::steady_clock::now() + options_.keep_watching;
    if (watched_.insert_or_assign(queue, until).second) history_.record(queue, stats);
    return true;
}

std::size_t HistoryRecorder::watched() const {
    std::lock_guard lock(mu_);
    return watched_.size();
}

void HistoryRecorder::record(const std::string& queue) {
    try {
        history_.record(queue, client_.admin(queue).stats());
    } catch (const std::exception& e) {
        spdlog::warn("history of {}: reading its totals failed: {}", queue, e.what());
    }
}

void HistoryRecorder::run() {
    auto next = std::chrono::steady_clock::now() + options_.interval;
    std::unique_lock lock(mu_);
    while (!stopping_) {
        if (cv_.wait_until(lock, next, [this] { return stopping_; })) break;
        // Steps of `interval` from the start, so that the points stay a second apart on
        // average even when a read is slow.
        next += options_.interval;
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + options_.interval;
        std::vector<std::string> queues;
        for (auto it = watched_.begin(); it != watched_.end();) {
            if (it->second < now) {
                history_.forget(it->first);
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
