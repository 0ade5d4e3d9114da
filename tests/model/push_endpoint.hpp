#pragma once

// Where the model's push requests go: a receiver the test runs (support/push_receiver.hpp) and
// the pushers' own HTTP client (push/http_client.hpp), so that each answer the driver chooses
// crosses a real connection, and the verdict settled is the one the pusher would reach on what
// came back.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "push/http_client.hpp"
#include "support/push_receiver.hpp"

namespace delayq::model {

// One exchange: what the receiver read, and what the client made of its answer.
struct PushExchange {
    std::optional<test::ReceivedRequest> request;  // none when no request reached the receiver
    push::HttpAnswer answer;
};

class PushEndpoint {
  public:
    PushEndpoint();
    ~PushEndpoint();
    PushEndpoint(const PushEndpoint&) = delete;
    PushEndpoint& operator=(const PushEndpoint&) = delete;

    std::string url(std::string_view path) const { return receiver_.url(path); }
    // A URL on which nothing listens: connecting is refused.
    static std::string refused_url() { return "http://127.0.0.1:1/hook"; }

    // Sends `request` and has the receiver answer it with `answer`; waits for the outcome.
    PushExchange exchange(push::HttpRequest request, const test::ReceiverAnswer& answer);

  private:
    struct Slot;
    std::shared_ptr<Slot> slot_;  // the answer the receiver gives next, shared with its thread
    test::PushReceiver receiver_;
    push::HttpClient client_;
};

}  // namespace delayq::model
