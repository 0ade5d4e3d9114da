#pragma once

#include <string>

#include "delayq/types.hpp"
#include "redis/connection.hpp"

namespace delayq::detail {

// What WAIT answered after a write: how many replicas confirmed it, or why it could not tell.
struct ReplicaAck {
    int confirmed = 0;
    std::string failure;  // empty when WAIT answered
};

// WAIT `replicas` `timeout` on `conn`, right after a write on it: Redis counts the replicas that
// have everything this connection wrote. The reply may take `timeout` on top of the connection's
// own command timeout, so it is read with that much patience. Never throws: a refused WAIT or a
// broken connection (which `conn` then says: Connection::broken) is the answer's failure.
ReplicaAck wait_for_replicas(Connection& conn, int replicas, Duration timeout);

}  // namespace delayq::detail
