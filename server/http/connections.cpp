#include "http/connections.hpp"

#include <vector>

#include "http/session.hpp"

namespace delayq::server::http {

std::uint64_t Connections::insert(const std::shared_ptr<Session>& session, bool handshake) {
    const std::uint64_t id = next_id_++;
    sessions_.emplace(id, Entry{session, handshake});
    if (handshake) ++handshakes_;
    return id;
}

std::uint64_t Connections::add(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(mutex_);
    if (stopping_ || sessions_.size() - handshakes_ >= max_) return 0;
    return insert(session, false);
}

std::uint64_t Connections::add_handshake(const std::shared_ptr<Session>& session) {
    std::lock_guard lock(mutex_);
    if (stopping_) return 0;
    if (handshakes_ >= max_handshakes_) {
        ++refused_handshakes_;
        return 0;
    }
    return insert(session, true);
}

bool Connections::admit(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end() || !it->second.handshake) return false;
    if (stopping_ || sessions_.size() - handshakes_ >= max_) return false;
    it->second.handshake = false;
    --handshakes_;
    return true;
}

void Connections::remove(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    if (it->second.handshake) --handshakes_;
    sessions_.erase(it);
    if (sessions_.empty()) empty_.notify_all();
}

bool Connections::refuse_connection() {
    std::lock_guard lock(mutex_);
    if (sessions_.size() - handshakes_ < max_) return false;
    ++refused_connections_;
    return true;
}

bool Connections::refuse_handshake() {
    std::lock_guard lock(mutex_);
    if (handshakes_ < max_handshakes_) return false;
    ++refused_handshakes_;
    return true;
}

std::size_t Connections::count() const {
    std::lock_guard lock(mutex_);
    return sessions_.size() - handshakes_;
}

std::size_t Connections::handshakes() const {
    std::lock_guard lock(mutex_);
    return handshakes_;
}

std::uint64_t Connections::refused_handshakes() const {
    std::lock_guard lock(mutex_);
    return refused_handshakes_;
}

std::uint64_t Connections::refused_connections() const {
    std::lock_guard lock(mutex_);
    return refused_connections_;
}

void Connections::stop_all() {
    std::vector<std::shared_ptr<Session>> open;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        for (const auto& [id, entry] : sessions_) {
            if (auto s = entry.session.lock()) open.push_back(std::move(s));
        }
    }
    for (const auto& s : open) s->stop();
}

bool Connections::wait_empty(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return empty_.wait_until(lock, deadline, [this] { return sessions_.empty(); });
}

}  // namespace delayq::server::http
