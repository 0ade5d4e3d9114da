#pragma once

#include "consumer/loop.hpp"
#include "queue_core.hpp"

namespace delayq::detail {

// Renews every lease the consumer holds (buffered, running, or awaiting its ack) a third of the
// visibility timeout at a time, so a slow handler keeps its message; drops leases found lost.
class Extender : public Loop {
  public:
    using Loop::Loop;

  private:
    void run() override;
    const char* thread_name() const override { return "dq-extend"; }
    void lost(const Lease& lease);  // call with the shared mutex held
};

}  // namespace delayq::detail
