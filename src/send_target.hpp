#pragma once

#include <span>
#include <string>
#include <vector>

#include "codec/send.hpp"
#include "keys.hpp"
#include "redis/connection.hpp"
#include "redis/pool.hpp"
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

    // The pool of the node that serves the queue now. Throws as Topology::pool_for does: the
    // send path answers each message with the error.
    ConnectionPool& pool() const { return route.topology.pool_for(route.slot); }
};

// One send call for 1..kMaxBatch messages on `conn`, waiting for its answer; on the node that
// serves the queue if that is not the one `conn` reaches (run_routed).
std::vector<SendResult> send_now(Connection& conn, const SendTarget& target,
                                 std::span<const send_codec::MessageRef> messages);

}  // namespace delayq::detail
