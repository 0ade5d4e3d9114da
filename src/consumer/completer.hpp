#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "consumer/completion_queue.hpp"
#include "consumer/context.hpp"
#include "consumer/held_leases.hpp"

namespace delayq::detail {

// Sends the outcomes of handled deliveries to Redis. Acks that pile up while a call is under way
// go together in the next call (group commit): one script call for many acks.
class Completer : public Loop {
  public:
    Completer(ConsumerContext& context, CompletionQueue& completions, HeldLeases& held)
        : context_(context), completions_(completions), held_(held) {}

    // Sends what is queued, then ends.
    void request_stop() override { completions_.close(); }
    // Past the shutdown deadline: what Redis refuses is given up instead of retried (the
    // messages are delivered again when their leases run out).
    void abandon();
    // Until everything queued reached Redis or was given up (true), or the deadline (false).
    bool wait_flushed(std::chrono::steady_clock::time_point deadline);

  private:
    void run() override;
    const char* thread_name() const override { return "dq-complete"; }

    ConsumerContext& context_;
    CompletionQueue& completions_;
    HeldLeases& held_;
    StopSignal abandoned_;
    std::mutex mutex_;
    std::condition_variable flushed_cv_;
    bool flushed_ = false;
};

}  // namespace delayq::detail
