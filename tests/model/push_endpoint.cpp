#include "model/push_endpoint.hpp"

#include <chrono>
#include <future>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace delayq::model {
namespace {

// Far above any answer the driver asks for: reaching it means the exchange itself broke.
constexpr std::chrono::seconds kExchangeLimit{60};

}  // namespace

struct PushEndpoint::Slot {
    std::mutex mutex;
    test::ReceiverAnswer next;
    std::optional<test::ReceivedRequest> received;
};

// The receiver keeps no requests of its own: the slot holds the one exchange under way.
PushEndpoint::PushEndpoint()
    : slot_(std::make_shared<Slot>()),
      receiver_(
          [slot = slot_](const test::ReceivedRequest& request, std::size_t) {
              std::lock_guard lock(slot->mutex);
              slot->received = request;
              return slot->next;
          },
          1, false),
      client_(push::HttpClientOptions{}) {}

PushEndpoint::~PushEndpoint() = default;

PushExchange PushEndpoint::exchange(push::HttpRequest request, const test::ReceiverAnswer& answer) {
    {
        std::lock_guard lock(slot_->mutex);
        slot_->next = answer;
        slot_->received.reset();
    }
    // Shared: should the wait give up, a late callback still has its promise.
    auto done = std::make_shared<std::promise<push::HttpAnswer>>();
    std::future<push::HttpAnswer> answered = done->get_future();
    client_.submit(std::move(request),
                   [done](push::HttpAnswer a) { done->set_value(std::move(a)); });
    if (answered.wait_for(kExchangeLimit) != std::future_status::ready) {
        throw std::runtime_error("a push request had no outcome within a minute");
    }
    PushExchange out;
    out.answer = answered.get();
    // The responder ran before the answer left, so before the client could have it.
    std::lock_guard lock(slot_->mutex);
    out.request = std::move(slot_->received);
    return out;
}

}  // namespace delayq::model
