#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <utility>

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

// The session's side of its connection's ClientWatch: the watch each request gets, and the
// read that watches the socket while a handler holds the request. A connection has one read at
// a time, so an answer written while that read is pending waits for its end to go on. Used on
// the connection's I/O thread only.
class SessionWatch {
  public:
    // The watch for the next request's handler: the connection's last one again, unless a
    // handler kept it (a long-poll whose fetch outlived its answer), so that a request costs no
    // two allocations for it. `begin` starts the watching read (from any thread).
    template <class Begin>
    const std::shared_ptr<ClientWatch>& arm(Begin&& begin) {
        if (watch_ && watch_.use_count() == 1) {
            watch_->rearm();
        } else {
            watch_ = std::make_shared<ClientWatch>(std::forward<Begin>(begin));
        }
        return watch_;
    }

    // Whether the watching read is to start now (a handler asked, no answer came yet, and no
    // such read is pending); if so, it is counted as pending from now.
    bool start_read();
    // The answer is being written: the handler's on_gone will not run.
    void answered();
    // The answer was written: the connection is to read its next request, or to `close`. True
    // when the watching read is pending still: it is to be cancelled, and its end (read_ended)
    // says so then.
    bool wait_for_read(bool close);

    enum class Next {
        kNothing,
        kReadNext,    // the answer was written meanwhile: on to the next request
        kClose,       // the answer was written meanwhile: close
        kClientGone,  // the client went away before its answer: the handler was told
    };
    // The watching read ended: `failed` when the client closed or reset the connection (not
    // when the read was cancelled, nor when it got the start of the client's next request).
    Next read_ended(bool failed);

  private:
    std::shared_ptr<ClientWatch> watch_;
    bool reading_ = false;
    Next after_read_ = Next::kNothing;  // what the answer, written during the read, left to do
};

}  // namespace delayq::server::http
