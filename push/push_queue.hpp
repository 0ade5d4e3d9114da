#pragma once

// One queue a pusher follows: its target as last read, the waiter that says when something
// may be due, and what the pusher has in flight for it. The pusher's Redis thread only, but
// for wake(), which the waiter calls.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "delayq/client.hpp"
#include "delayq/push.hpp"
#include "delayq/waiter.hpp"
#include "push/signature.hpp"

namespace delayq::push {

class PushQueue {
  public:
    using Steady = std::chrono::steady_clock;

    // `on_wake` runs on the waiter's thread when something may be due: it must be quick.
    PushQueue(const Client& client, std::string name, Duration idle_check,
              std::function<void()> on_wake);
    ~PushQueue();
    PushQueue(const PushQueue&) = delete;
    PushQueue& operator=(const PushQueue&) = delete;

    const std::string& name() const { return name_; }
    PushTargets& targets() { return targets_; }
    Leases& leases() { return leases_; }
    Waiter& waiter() { return waiter_; }

    // Reads the target again when it changed; false when the queue has none (any more).
    // Throws Error (Redis); InvalidArgument for stored secrets this build refuses, after which
    // the queue is not pushed until its target changes.
    bool refresh();
    // The target to push to; null when there is none or it cannot be used (no signer made).
    const PushTarget* target() const { return signer_ ? &target_->target : nullptr; }
    const WebhookSigner& signer() const { return *signer_; }

    // Asks for a lease call at the next turn of the loop.
    void wake() { wake_.store(true); }
    // Takes the request: true when one was made since the last take.
    bool take_wake() { return wake_.exchange(false); }
    bool wake_pending() const { return wake_.load(); }

    std::size_t in_flight = 0;
    // The last lease was held back by the target's limits, or by the pusher's own: one of this
    // pusher's requests ending may make room.
    bool limited = false;
    // After a failed call: no lease call before then.
    Steady::time_point retry_at{};
    int failures = 0;

    // The latest answer, written now and then for `push get`.
    struct Answer {
        int status = 0;
        std::string error;
    };
    std::optional<Answer> unrecorded{};
    Steady::time_point recorded_at{};

  private:
    std::string name_;
    Leases leases_;
    PushTargets targets_;
    Waiter waiter_;
    std::optional<PushTargets::ForPusher> target_;
    std::unique_ptr<WebhookSigner> signer_;  // null while the target is absent or unusable
    std::atomic<bool> wake_{true};
    Waiter::Subscription subscription_;
};

}  // namespace delayq::push
