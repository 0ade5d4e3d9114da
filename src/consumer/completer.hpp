#pragma once

#include "consumer/loop.hpp"

namespace delayq::detail {

// Sends the outcomes of handled deliveries to Redis. Acks that pile up while a call is under way
// go together in the next call (group commit): one script call for many acks.
class Completer : public Loop {
  public:
    using Loop::Loop;

  private:
    void run() override;
    const char* thread_name() const override { return "dq-complete"; }
};

}  // namespace delayq::detail
