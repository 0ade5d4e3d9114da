#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/types.hpp"

namespace delayq::detail {

// What a handler (or the stop sequence) decided about a delivery, for the completer to send.
struct Completion {
    enum class Kind { kAck, kNack, kReject, kRelease };
    Kind kind = Kind::kAck;
    Lease lease;
    std::optional<Duration> delay{};  // none: the queue's backoff
    std::string error;
    bool sent = false;  // reached Redis; a retry of the batch skips it
};

// Outcomes on their way from the workers to the completer. Whatever piles up while the
// completer is busy is taken in one go: that is what groups acks into one script call.
class CompletionQueue {
  public:
    void push(Completion completion);
    void push(std::vector<Completion>& completions);  // moves them out, leaves it empty
    // Blocks until outcomes are queued, and moves them all into `batch`. While they are all acks
    // and fewer than a full call, it waits up to `linger` from the first for more to join them
    // (see ConsumerOptions::ack_linger). False once the queue is closed and drained.
    bool take(std::vector<Completion>& batch, Duration linger = Duration::zero());
    // What is queued is still taken; then take() answers false.
    void close();

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Completion> queued_;
    std::size_t not_acks_ = 0;  // queued outcomes that must not wait (nacks, releases)
    bool closed_ = false;
};

}  // namespace delayq::detail
