#pragma once

#include "consumer/loop.hpp"

namespace delayq::detail {

// Fetches batches while handlers have room, then sleeps until the next message falls due or a
// lease runs out (both reported by the fetch script on the Redis clock), until a producer
// signals an earlier message, or at most idle_check.
class Dispatcher : public Loop {
  public:
    using Loop::Loop;

  private:
    void run() override;
    const char* thread_name() const override { return "dq-fetch"; }
};

}  // namespace delayq::detail
