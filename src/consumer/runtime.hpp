#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "consumer/completer.hpp"
#include "consumer/completion_queue.hpp"
#include "consumer/context.hpp"
#include "consumer/delivery_buffer.hpp"
#include "consumer/fetch_loop.hpp"
#include "consumer/held_leases.hpp"
#include "consumer/lease_extender.hpp"
#include "consumer/workers.hpp"
#include "waiter/waiter_core.hpp"

namespace delayq::detail {

// Owns a consumer's parts and loops, and runs its stop sequence.
class ConsumerRuntime {
  public:
    ConsumerRuntime(std::shared_ptr<QueueCore> core, Handler handler, ConsumerOptions options);
    ~ConsumerRuntime();
    ConsumerRuntime(const ConsumerRuntime&) = delete;
    ConsumerRuntime& operator=(const ConsumerRuntime&) = delete;

    void start();
    void stop();
    void wait();
    ConsumerStats stats() const;

  private:
    void supervise();  // waits for stop, then shuts the loops down in order
    void fail(std::exception_ptr error);

    ConsumerContext context_;
    // The state the loops share, each part with its own lock.
    HeldLeases held_;
    DeliveryBuffer buffer_{context_.options, [this] { fetch_loop_.room_freed(); }};
    CompletionQueue completions_;
    // The loops. The waiter is the public Waiter's mechanism: its clock aims the fetch loop.
    WaiterCore waiter_{context_.core, WaiterOptions{context_.options.idle_check}};
    FetchLoop fetch_loop_{context_, buffer_, held_, waiter_.clock(),
                          [this](std::exception_ptr e) { fail(std::move(e)); }};
    WorkerPool workers_{context_, buffer_, held_, completions_};
    Completer completer_{context_, completions_, held_};
    LeaseExtender lease_extender_{context_, held_, buffer_};

    mutable std::mutex mutex_;
    std::condition_variable cv_;  // stop requested, stopped
    bool started_ = false;
    bool stop_requested_ = false;
    bool stopped_ = false;
    std::exception_ptr fatal_;
    std::thread supervisor_;
};

}  // namespace delayq::detail
