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

// The open connections: counted against the cap, and told to finish when the server stops. A
// TLS connection is counted apart while its handshake is under way, against a smaller cap of
// its own, and takes a connection slot only once the handshake is done: so that clients that
// connect and say nothing can neither fill the connection slots nor grow without bound.
class Connections {
  public:
    Connections(std::size_t max, std::size_t max_handshakes)
        : max_(max), max_handshakes_(max_handshakes) {}

    // Registers a session; 0 when it must not run (the cap is reached, or the server stops).
    std::uint64_t add(const std::shared_ptr<Session>& session);
    // Registers a TLS session for its handshake; 0 when it must not run (the handshakes' cap
    // is reached, which refused_handshakes() counts, or the server stops).
    std::uint64_t add_handshake(const std::shared_ptr<Session>& session);
    // The handshake of `id` is done: it takes a connection slot instead. False when the cap is
    // reached or the server stops: the session is to close.
    bool admit(std::uint64_t id);
    void remove(std::uint64_t id);
    // Whether a new connection is to be refused, the cap being full; counted when so (racy by
    // design: a hint for the acceptor, which answers 503 to the ones that do not fit; add() is
    // the real check).
    bool refuse_connection();
    // Whether a new TLS connection is to be closed at once, every handshake slot being taken;
    // counted when so. A hint too, so that no session is made for it; add_handshake() is the
    // real check.
    bool refuse_handshake();
    // Connections holding a slot (their handshake done), and those in their handshake.
    std::size_t count() const;
    std::size_t handshakes() const;
    std::uint64_t refused_handshakes() const;
    std::uint64_t refused_connections() const;

    // Refuses new sessions and asks every open one to finish its request and close.
    void stop_all();
    // Waits until every session has ended or the deadline passes; true when all ended.
    bool wait_empty(std::chrono::steady_clock::time_point deadline);

  private:
    struct Entry {
        std::weak_ptr<Session> session;
        bool handshake = false;
    };
    std::uint64_t insert(const std::shared_ptr<Session>& session, bool handshake);

    mutable std::mutex mutex_;
    std::condition_variable empty_;
    std::unordered_map<std::uint64_t, Entry> sessions_;
    std::size_t max_;
    std::size_t max_handshakes_;
    std::size_t handshakes_ = 0;  // of sessions_
    std::uint64_t refused_handshakes_ = 0;
    std::uint64_t refused_connections_ = 0;
    std::uint64_t next_id_ = 1;
    bool stopping_ = false;
};

}  // namespace delayq::server::http
