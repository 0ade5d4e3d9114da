#pragma once

#include <functional>
#include <mutex>

namespace delayq::server::http {

// Lets a handler that holds its request for long (a long-poll) learn that the client closed its
// connection before the answer, so that what it holds for the client is handed back at once
// rather than after the request's own end. The session watches the socket only for requests
// whose handler asked. Thread-safe.
class ClientWatch {
  public:
    // `begin` starts the watching (the session's: a read on its socket, on its I/O thread).
    explicit ClientWatch(std::function<void()> begin) : begin_(std::move(begin)) {}

    // Runs `on_gone` once, on an I/O thread, if the client closes its connection before the
    // answer is written; nothing when the answer comes first. Call at most once.
    void watch(std::function<void()> on_gone);
    // Whether the client has gone: an answer now would be written to nobody.
    bool gone() const;

    // The session's side: the answer is being written (on_gone will not run), or the client
    // has gone (runs on_gone, once).
    void disarm();
    void client_gone();
    // Whether the watching should (still) run: a handler asked, and no answer came yet.
    bool armed() const;
    // Ready for the connection's next request, as new: only when nothing but the session
    // holds it (a handler done with its request kept no copy).
    void rearm();

  private:
    std::function<void()> begin_;
    mutable std::mutex mutex_;
    std::function<void()> on_gone_;
    bool disarmed_ = false;
    bool gone_ = false;
};

}  // namespace delayq::server::http
