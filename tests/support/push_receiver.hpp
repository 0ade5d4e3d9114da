#pragma once

// An HTTP/1.1 server in the test's own process that push requests are sent to: it records what
// arrives and answers as the test's responder says, so that the pushers' tests and the push
// benchmark see exactly what a receiver would. Boost.Beast stays in its .cpp.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace delayq::test {

struct ReceivedRequest {
    std::string method;
    std::string target;                                        // path and query
    std::vector<std::pair<std::string, std::string>> headers;  // as received, in order
    std::string body;
    std::chrono::system_clock::time_point received_at;  // when the whole request had been read
    std::uint64_t connection = 0;  // which accepted connection (1, 2, ...) carried it
    std::string header(std::string_view name) const;  // case-insensitive; "" when absent
};

struct ReceiverAnswer {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers{};
    std::string body{};
    // Answer after this long; a timer, so that other connections are answered meanwhile.
    std::chrono::milliseconds delay{0};
    bool close = false;  // close the connection without any answer
};

// Listens on 127.0.0.1 on a port the system picks; keep-alive, any number of connections,
// bodies up to 1 MiB (a larger one is answered 413, a malformed request 400, and the
// connection closed).
class PushReceiver {
  public:
    // nth: how many requests with this same body arrived before this one (0 the first time).
    using Responder = std::function<ReceiverAnswer(const ReceivedRequest&, std::size_t nth)>;
    // An empty responder answers 200 to all. keep_requests false (the benchmark) keeps only
    // lateness_us(), so that a long run does not hold every request.
    explicit PushReceiver(Responder responder = {}, unsigned threads = 1,
                          bool keep_requests = true);
    ~PushReceiver();  // stops, joins
    PushReceiver(const PushReceiver&) = delete;
    PushReceiver& operator=(const PushReceiver&) = delete;

    std::uint16_t port() const;
    std::string url(std::string_view path = "/hook") const;  // "http://127.0.0.1:<port>/hook"
    std::vector<ReceivedRequest> requests() const;  // a copy (empty when keep_requests is false)
    std::size_t count() const;                      // requests answered or closed so far
    std::size_t connections() const;                // accepted so far
    // Blocks until pred(requests()) holds (re-checked on every arrival and answer) or the
    // timeout; returns pred's last value. pred runs without the receiver's lock held.
    bool wait_for(const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
                  std::chrono::milliseconds timeout);
    // Per request, received_at minus its Delayq-Due header (unix ms) in microseconds, in
    // arrival order; a request without a Delayq-Due number has none.
    std::vector<std::int64_t> lateness_us() const;

    // The behaviours the push tests use, chosen by the body's first word (text up to the first
    // ':' or the end):
    //   "ok"         -> 200
    //   "fail-once"  -> 500 "boom" the first time (nth 0), then 200
    //   "busy-once"  -> 429 with "Retry-After: 1" the first time, then 200
    //   "bad"        -> 400 with body "no such order"
    //   "slow:<ms>"  -> 200 after <ms> milliseconds
    //   "close-once" -> close without an answer the first time, then 200
    //   "redirect"   -> 302 with Location: /elsewhere
    //   anything else -> 200
    static Responder scripted();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace delayq::test
