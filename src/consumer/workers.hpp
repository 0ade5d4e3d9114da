#pragma once

#include <random>

#include "consumer/loop.hpp"

namespace delayq::detail {

// One handler thread: takes a buffered delivery, runs the handler, and queues the outcome for
// the completer. Stops taking deliveries once the consumer is stopping.
class Worker : public Loop {
  public:
    using Loop::Loop;

  private:
    void run() override;
    std::mt19937_64 rng_{std::random_device{}()};  // backoff jitter
};

}  // namespace delayq::detail
