#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/error.hpp"
#include "delayq/options.hpp"
#include "delayq/types.hpp"
#include "redis/connection.hpp"
#include "redis/replica_wait.hpp"

namespace delayq::detail {

// The WAIT of a durable send line (QueueOptions::durability), on the connection that ran the
// send, right after it succeeded; and the error that reports a shortfall.

inline bool is_durable(const Durability& durability) { return durability.replicas > 0; }

inline ReplicaAck confirm_replicas(Connection& conn, const Durability& durability) {
    return wait_for_replicas(conn, durability.replicas, durability.timeout);
}

// Whether `ack` (absent for a plain line) falls short of what `durability` asks.
inline bool short_of(const std::optional<ReplicaAck>& ack, const Durability& durability) {
    return ack && (!ack->failure.empty() || ack->confirmed < durability.replicas);
}

// The DurabilityError of a send of `ids` to `queue` that `ack` did not confirm enough.
DurabilityError not_replicated(std::vector<std::string> ids, std::string_view queue,
                               const Durability& durability, const ReplicaAck& ack);

// An id for a message a durable handle sends without one: the client makes it, where a plain
// send has Redis generate one, because a generated id's form (a sequence key) is refused as a
// caller's id, and a DurabilityError must name ids a retry can send again. 32 hex digits (never
// the generated form): the client's clock in microseconds, so that one thread's ids mostly sort
// in send order, then 64 random bits.
std::string durable_id();

// The ids of `results`, in order.
std::vector<std::string> ids_of(std::span<const SendResult> results);

}  // namespace delayq::detail
