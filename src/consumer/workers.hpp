#pragma once

#include <deque>
#include <mutex>
#include <random>
#include <vector>

#include "consumer/loop.hpp"
#include "consumer/shared.hpp"

namespace delayq::detail {

// One handler thread: takes buffered deliveries (several at once from a deep buffer), runs the
// handler on each, and queues the outcomes for the completer. Stops taking deliveries once the
// consumer is stopping.
class Worker : public Loop {
  public:
    using Loop::Loop;

    // With the shared mutex held: the deliveries this worker took but has not started. They
    // leave `running` here (the stop sequence releases them).
    std::vector<Delivery> take_unstarted();
    // With the shared mutex held: up to half of them (at least one), for an idle worker.
    std::vector<Delivery> steal();

  private:
    void run() override;
    const char* thread_name() const override { return "dq-worker"; }
    Completion handle(const Delivery& delivery);
    std::optional<Delivery> next_taken();
    // With the shared mutex held: moves deliveries into taken_, counted as running.
    void take(std::vector<Delivery> deliveries);
    // With the shared mutex held: a share of the buffer, or of another worker's unstarted ones.
    bool take_work();
    // With the shared mutex held: waits until this worker took work (true) or the consumer is
    // stopping (false).
    bool wait_for_work(std::unique_lock<std::mutex>& lock);

    // What this worker took from the shared buffer and has not started. Its own mutex, so that
    // starting each delivery does not contend for the shared one; the stop sequence takes
    // shared then local, the worker only ever holds one of them.
    std::mutex taken_mutex_;
    std::deque<Delivery> taken_;
    SteadyClock::time_point chunk_began_;  // when taken_ was last filled; under taken_mutex_
    std::mt19937_64 rng_{std::random_device{}()};  // backoff jitter
    bool fast_ = false;  // the last deliveries took under the chunk budget together
};

}  // namespace delayq::detail
