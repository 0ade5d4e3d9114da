#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "delayq/types.hpp"

namespace delayq {

// One delivery of a message: the message is leased to its receiver until acked, nacked or the
// lease runs out. The token fences the lease: once it is lost, ack, nack and extend with this
// delivery change nothing.
class Delivery {
  public:
    Delivery(std::string queue, std::string id, std::string payload, std::uint64_t token,
             int attempt, int max_attempts, TimePoint due, TimePoint delivered_at);

    const std::string& queue() const { return queue_; }
    const std::string& id() const { return id_; }
    const std::string& payload() const { return payload_; }
    std::uint64_t token() const { return token_; }
    int attempt() const { return attempt_; }  // 1 on the first delivery
    int max_attempts() const { return max_attempts_; }
    TimePoint due() const { return due_; }
    TimePoint delivered_at() const { return delivered_at_; }  // Redis time of the lease
    Duration lateness() const { return delivered_at_ - due_; }

  private:
    std::string queue_;
    std::string id_;
    std::string payload_;
    std::uint64_t token_;
    int attempt_;
    int max_attempts_;
    TimePoint due_;
    TimePoint delivered_at_;
};

// What a handler decides about a delivery.
struct Ack {};
// Retry later: after `delay`, or after the consumer's backoff when unset. Out of attempts, the
// message is dead-lettered instead.
struct Nack {
    std::optional<Duration> delay{};
    std::string error{};
};
// Dead-letter now, without further attempts.
struct Reject {
    std::string error{};
};
using Outcome = std::variant<Ack, Nack, Reject>;

}  // namespace delayq
