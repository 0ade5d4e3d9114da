#pragma once

#include <span>
#include <string>
#include <vector>

#include "codec/send.hpp"
#include "keys.hpp"
#include "redis/connection.hpp"
#include "redis/pool.hpp"

namespace delayq::detail {

// Where a queue's sends go and what they are encoded with: all that the send path (the
// coalescer and its pipeline) needs to know of the queue. The references point into the
// QueueCore that owns the send path, which outlives it.
struct SendTarget {
    ConnectionPool& pool;
    const QueueKeys& keys;
    const std::string& queue;  // the queue's name, for logs
    send_codec::Defaults defaults;
};

// One send call for 1..kMaxBatch messages on `conn`, waiting for its answer.
std::vector<SendResult> send_now(Connection& conn, const SendTarget& target,
                                 std::span<const send_codec::MessageRef> messages);

}  // namespace delayq::detail
