#include "http/connections.hpp"

#include <vector>

#include "http/session.hpp"

namespace delayq::server::http {

std::uint64_t Connections::add(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(mutex_);
    if (stopping_ || sessions_.size() >= max_) return 0;
    const std::uint64_t id = next_id_++;
    sessions_.emplace(id, session);
    return id;
}

void Connections::remove(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
    if (sessions_.empty()) empty_.notify_all();
}

bool Connections::full() const {
    std::lock_guard lock(mutex_);
    return sessions_.size() >= max_;
}

std::size_t Connections::count() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

void Connections::stop_all() {
    std::vector<std::shared_ptr<Session>> open;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        for (const auto& [id, weak] : sessions_) {
            if (auto s = weak.lock()) open.push_back(std::move(s));
        }
    }
    for (const auto& s : open) s->stop();
}

bool Connections::wait_empty(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return empty_.wait_until(lock, deadline, [this] { return sessions_.empty(); });
}

}  // namespace delayq::server::http
