#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/send.hpp"
#include "keys.hpp"
#include "redis/connection.hpp"
#include "redis/pool.hpp"
#include "redis/replica_wait.hpp"
#include "redis/routed_call.hpp"

namespace delayq::detail {

// Where a queue's sends go and what they are encoded with: all that the send path (the
// coalescer and its pipeline) needs to know of the queue. The references point into the
// QueueCore that owns the send path, which outlives it.
struct SendTarget {
    Route route;        // the queue's slot
    Duration patience;  // how long a call refused for now is sent again (run_routed)
    const QueueKeys& keys;
    const std::string& queue;  // the queue's name, for logs
    send_codec::Defaults defaults;
    // Replicas each call waits for (QueueOptions::durability); none for a plain queue.
    Durability durability;

    // The pool of the node that serves the queue now. Throws as Topology::pool_for does: the
    // send path answers each message with the error.
    ConnectionPool& pool() const { return route.topology.pool_for(route.slot); }
};

// A send call's answer: a result per message and, for a durable target, what WAIT said.
struct SentCall {
    std::vector<SendResult> results;
    std::optional<ReplicaAck> ack;
};

// One send call for 1..kMaxBatch messages on `conn`, waiting for its answer; on the node that
// serves the queue if that is not the one `conn` reaches (run_routed). A durable target's call
// is followed by its WAIT on the connection that ran it.
SentCall send_call(Connection& conn, const SendTarget& target,
                   std::span<const send_codec::MessageRef> messages);
// The same, throwing DurabilityError (with every message's id) when the replicas fall short.
std::vector<SendResult> send_now(Connection& conn, const SendTarget& target,
                                 std::span<const send_codec::MessageRef> messages);

}  // namespace delayq::detail
