#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include "consumer/completion_queue.hpp"
#include "consumer/context.hpp"
#include "consumer/delivery_buffer.hpp"
#include "consumer/held_leases.hpp"

namespace delayq::detail {

// One handler thread: takes deliveries from its slot of the buffer (several at once when its
// handlers are fast), runs the handler on each, and queues the outcomes for the completer.
class Worker : public Loop {
  public:
    Worker(ConsumerContext& context, DeliveryBuffer& buffer, std::size_t slot, HeldLeases& held,
           CompletionQueue& completions)
        : context_(context), buffer_(buffer), slot_(slot), held_(held), completions_(completions) {}

    // Workers stop together, through the buffer: WorkerPool::request_stop().
    void request_stop() override { buffer_.request_stop(); }

  private:
    void run() override;
    const char* thread_name() const override { return "dq-worker"; }
    Completion handle(const Delivery& delivery);

    ConsumerContext& context_;
    DeliveryBuffer& buffer_;
    const std::size_t slot_;
    HeldLeases& held_;
    CompletionQueue& completions_;
    std::mt19937_64 rng_{std::random_device{}()};  // backoff jitter
};

// The consumer's `concurrency` workers, with the start/stop shape of one loop.
class WorkerPool {
  public:
    WorkerPool(ConsumerContext& context, DeliveryBuffer& buffer, HeldLeases& held,
               CompletionQueue& completions);

    void start();
    // No more handler starts; running handlers finish.
    void request_stop();
    // Until no handler runs (true) or the deadline (false).
    bool wait_idle(std::chrono::steady_clock::time_point deadline);
    // Waits for every worker thread, even one blocked in a handler past the deadline.
    void join();

  private:
    DeliveryBuffer& buffer_;
    std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace delayq::detail
