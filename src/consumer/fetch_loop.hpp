#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

#include "consumer/context.hpp"
#include "consumer/delivery_buffer.hpp"
#include "consumer/held_leases.hpp"
#include "waiter/wake_clock.hpp"

namespace delayq::detail {

// Fetches batches while the buffer has room, then sleeps until the wake clock fires: the next
// message falls due or a lease runs out (both reported by the fetch script on the Redis clock),
// a producer signalled an earlier message, or idle_check passed.
class FetchLoop : public Loop {
  public:
    // `on_fatal` gets an error that retrying cannot mend (ConfigurationError); the loop ends.
    FetchLoop(ConsumerContext& context, DeliveryBuffer& buffer, HeldLeases& held, WakeClock& clock,
              std::function<void(std::exception_ptr)> on_fatal)
        : context_(context),
          buffer_(buffer),
          held_(held),
          clock_(clock),
          on_fatal_(std::move(on_fatal)) {}

    void request_stop() override;
    // A worker finished handlers: wakes the loop if it waits for room.
    void room_freed();
    // The wake clock fired: wakes the loop if it sleeps.
    void may_be_due();

  private:
    void run() override;
    const char* thread_name() const override { return "dq-fetch"; }
    // The leases of a fetch go to the held leases and the buffer.
    void take(FetchResult& result);

    ConsumerContext& context_;
    DeliveryBuffer& buffer_;
    HeldLeases& held_;
    WakeClock& clock_;
    const std::function<void(std::exception_ptr)> on_fatal_;

    std::mutex mutex_;
    std::condition_variable cv_;  // room freed, may be due, stop
    bool stop_ = false;
    bool due_ = false;  // the clock fired since the last fetch began
    // FetchShare::rounds_sent() when the clock last fired: a round sent after it that found
    // nothing more due answers this loop's next fetch without a call of its own.
    std::uint64_t trigger_ = 0;
};

}  // namespace delayq::detail
