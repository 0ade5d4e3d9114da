#pragma once

#include <condition_variable>
#include <delayq/leases.hpp>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace delayq::cli {

// Acks the batches `consume` has printed on a thread of its own, so that the next batch is
// fetched and written while Redis acks the one before: the client's work and Redis's overlap
// instead of taking turns. Keeps at most one batch waiting behind the one being acked. An ack
// that fails is retried for as long as the leases may still hold (the visibility timeout);
// after that the messages are due again anyway, and the failure is thrown by the next call.
// Start it after any SignalWatcher (it has a thread).
class BatchAcker {
  public:
    BatchAcker(Leases leases, Duration visibility);
    // Acks what was handed over first; a failure then is only reported.
    ~BatchAcker();
    BatchAcker(const BatchAcker&) = delete;
    BatchAcker& operator=(const BatchAcker&) = delete;

    // Hands over the leases of messages that were written; blocks while a batch is waiting.
    // Rethrows the failure of an earlier ack.
    void push(std::vector<Lease> leases);
    // Returns once every batch handed over is acked. Rethrows the failure of an ack.
    void finish();

  private:
    void run();
    void ack(const std::vector<Lease>& leases);
    void rethrow_failure();

    Leases leases_;
    Duration visibility_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<std::vector<Lease>> waiting_;
    bool busy_ = false;  // a batch is being acked
    bool stop_ = false;
    std::exception_ptr failure_;
    std::thread thread_;
};

}  // namespace delayq::cli
