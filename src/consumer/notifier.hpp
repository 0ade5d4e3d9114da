#pragma once

#include "consumer/loop.hpp"

namespace delayq::detail {

// Listens on the queue's wake channel (SSUBSCRIBE) and tells the dispatcher when a producer
// made a message due earlier than what the dispatcher sleeps for. After (re)subscribing it wakes
// the dispatcher once, since signals sent while it was not listening are gone.
class Notifier : public Loop {
  public:
    using Loop::Loop;

  private:
    void run() override;
    const char* thread_name() const override { return "dq-notify"; }
};

}  // namespace delayq::detail
