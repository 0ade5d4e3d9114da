#pragma once

// The pushers' HTTP client: libcurl's multi interface on a thread of its own, so that thousands
// of requests are in flight at once over kept-alive connections, each to be judged when it
// ends. Nothing here knows of Redis or of messages.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "delayq/limits.hpp"
#include "delayq/push.hpp"
#include "push/answer.hpp"

namespace delayq::push {

struct HttpClientOptions {
    // Where requests may connect: checked on every address libcurl is about to connect to.
    PushNetwork network{};
    // PEM certificates to verify HTTPS servers with; empty: the system's store.
    std::string ca_file{};
    // Idle connections kept for reuse, across every host.
    std::size_t max_idle_connections = 1000;
};

struct HttpRequest {
    std::string url;
    PushMethod method = PushMethod::kPost;
    std::vector<std::string> headers;  // "Name: value" lines
    std::string body;
    std::chrono::milliseconds timeout{0};  // the whole request's, connecting included
};

// An answer's body is kept to one byte more than the verdict's excerpt shows, so that the
// excerpt can say that the body went on ("..."): the model test found recorded errors that cut
// a long body without saying so.
inline constexpr std::size_t kAnswerBodyKept = kPushAnswerExcerptBytes + 1;

struct HttpAnswer {
    int status = 0;      // 0: no answer; then failure holds why
    std::string body{};  // its first kAnswerBodyKept bytes
    std::optional<std::string> retry_after{};
    std::optional<TransportFailure> failure{};
    std::string failure_detail{};
    std::chrono::milliseconds timeout{0};  // the request's, for judge_failure

    // What the answer, or its absence, means for the message.
    PushVerdict verdict() const;
};

class HttpClient {
  public:
    // Runs on the client's thread: it must be quick (hand the answer over and return).
    using Done = std::function<void(HttpAnswer)>;

    // Throws Error when libcurl cannot be set up. Starts the thread.
    explicit HttpClient(HttpClientOptions options);
    // Aborts what is in flight (their callbacks do not run) and joins the thread.
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Thread-safe. `done` runs once, on the client's thread, unless the client is destroyed first.
    void submit(HttpRequest request, Done done);
    // Requests submitted and not yet done.
    std::size_t in_flight() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace delayq::push
