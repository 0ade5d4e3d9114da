#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "delayq/types.hpp"

namespace delayq {

// A delivery's hold on its message: the message's id and the token the fetch that leased it
// issued. The token fences the lease: once it has ended, every operation with it changes nothing
// and answers LeaseStatus::kLost. A Lease converts to an opaque string and back, so that a
// process that hands leases to others (the HTTP service) need not keep them.
//
// Fencing, not secrecy: tokens are sequence numbers, so anyone who may run lease operations on
// a queue can guess a live lease from the ids and the order of deliveries, and ack another
// holder's message. A process that hands leases to parties that must not act on each other's
// (the HTTP service) seals them with a MAC first (docs/security.md).
class Lease {
  public:
    Lease() = default;
    Lease(std::string id, std::uint64_t token) : id_(std::move(id)), token_(token) {}

    const std::string& id() const { return id_; }
    std::uint64_t token() const { return token_; }

    std::string to_string() const;
    // The lease a to_string() gave; nullopt for any text that is not one.
    static std::optional<Lease> parse(std::string_view text);

    bool operator==(const Lease&) const = default;

  private:
    std::string id_;
    std::uint64_t token_ = 0;
};

// One delivery of a message: the message is leased to its receiver until acked, nacked or the
// lease runs out.
class Delivery {
  public:
    Delivery(std::string queue, Lease lease, std::string payload, int attempt, int max_attempts,
             TimePoint due, TimePoint delivered_at, std::string last_error = {});

    const std::string& queue() const { return queue_; }
    const std::string& id() const { return lease_.id(); }
    const Lease& lease() const { return lease_; }
    const std::string& payload() const { return payload_; }
    int attempt() const { return attempt_; }  // 1 on the first delivery
    int max_attempts() const { return max_attempts_; }
    TimePoint due() const { return due_; }
    TimePoint delivered_at() const { return delivered_at_; }  // Redis time of the lease
    Duration lateness() const { return delivered_at_ - due_; }
    // Why the previous attempt failed (a nack's error, or a lapsed lease); empty on the first.
    const std::string& last_error() const { return last_error_; }

  private:
    std::string queue_;
    Lease lease_;
    std::string payload_;
    int attempt_;
    int max_attempts_;
    TimePoint due_;
    TimePoint delivered_at_;
    std::string last_error_;
};

// What a handler decides about a delivery.
struct Ack {};
// Retry later: after `delay`, or after the backoff when unset (the Consumer's, or for
// Leases::nack the default Backoff). Out of attempts, the message is dead-lettered instead.
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
