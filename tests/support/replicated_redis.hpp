#pragma once

#include "support/redis_server.hpp"

namespace delayq::test {

// A primary and one replica of it on loopback, each a RedisServer with its own directory, for
// durable sends (WAIT). The constructor returns once the replica's link is up.
class ReplicatedRedis {
  public:
    explicit ReplicatedRedis(RedisServerOptions options = {});

    RedisServer& primary() { return primary_; }
    RedisServer& replica() { return replica_; }

  private:
    RedisServer primary_;
    RedisServer replica_;
};

}  // namespace delayq::test
