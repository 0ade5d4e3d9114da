#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace delayq::server::http {

class Session;

// The open connections: counted against the cap, and told to finish when the server stops.
class Connections {
  public:
    explicit Connections(std::size_t max) : max_(max) {}

    // Registers a session; 0 when it must not run (the cap is reached, or the server stops).
    std::uint64_t add(const std::shared_ptr<Session>& session);
    void remove(std::uint64_t id);
    // Whether one more connection fits under the cap (racy by design: a hint for the acceptor,
    // which answers 503 to the ones that do not fit; add() is the real check).
    bool full() const;
    std::size_t count() const;

    // Refuses new sessions and asks every open one to finish its request and close.
    void stop_all();
    // Waits until every session has ended or the deadline passes; true when all ended.
    bool wait_empty(std::chrono::steady_clock::time_point deadline);

  private:
    mutable std::mutex mutex_;
    std::condition_variable empty_;
    std::unordered_map<std::uint64_t, std::weak_ptr<Session>> sessions_;
    std::size_t max_;
    std::uint64_t next_id_ = 1;
    bool stopping_ = false;
};

}  // namespace delayq::server::http
