#pragma once

#include "consumer/context.hpp"
#include "consumer/delivery_buffer.hpp"
#include "consumer/held_leases.hpp"

namespace delayq::detail {

// Renews every lease the consumer holds (buffered, running, or awaiting its ack) a third of the
// visibility timeout at a time, so a slow handler keeps its message; drops leases found lost.
class LeaseExtender : public Loop {
  public:
    LeaseExtender(ConsumerContext& context, HeldLeases& held, DeliveryBuffer& buffer)
        : context_(context), held_(held), buffer_(buffer) {}

    void request_stop() override { stop_.request(); }

  private:
    void run() override;
    const char* thread_name() const override { return "dq-extend"; }
    void lost(const Lease& lease);

    ConsumerContext& context_;
    HeldLeases& held_;
    DeliveryBuffer& buffer_;
    StopSignal stop_;
};

}  // namespace delayq::detail
