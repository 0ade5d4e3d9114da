#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <delayq/leases.hpp>
#include <delayq/waiter.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace delayq::cli {

class BatchAcker;
class LeaseKeeper;

enum class PrintFormat { kJson, kRaw };

struct PrintOptions {
    PrintFormat format = PrintFormat::kJson;
    std::optional<std::size_t> max;                    // print exactly this many, then end
    std::optional<std::chrono::milliseconds> timeout;  // end after this long without messages
    Duration visibility = std::chrono::seconds(30);
};

// `consume` without a command: leases due messages in batches, writes each batch to stdout with
// one write and acks it with one call, while the next batch is fetched and written
// (BatchAcker). A message is acked only once all of its bytes were written; the leases of a
// batch are kept while its write takes long (LeaseKeeper). Through the
// public Leases and Waiter, without a Consumer: a handler per message and its hand-offs
// between threads cost more than printing it, and --max needs no more leased than printed.
class BatchPrinter {
  public:
    BatchPrinter(Leases leases, PrintOptions options);

    // Prints until --max, the timeout, a stop request or output that cannot be written; returns
    // the number of messages printed (and acked). Throws for a fatal error (ConfigurationError),
    // acks that keep failing or output that fails other than by its reader leaving; Redis
    // failures otherwise are reported and retried.
    std::size_t run();
    // Ends run() after the batch being written, if any, is acked (any thread).
    void request_stop();

  private:
    // Writes one batch and hands what was written whole to the acker; false when the output
    // could not take all of it.
    bool print(const std::vector<Delivery>& batch, LeaseKeeper& keeper, BatchAcker& acker);
    void hand_back(std::span<const Lease> leases);

    Leases leases_;
    PrintOptions options_;
    Waiter waiter_;
    std::atomic<bool> stop_{false};
    std::size_t batch_size_;
    std::size_t printed_ = 0;
    // Of the batch being printed, kept from batch to batch for their memory.
    std::string out_;
    std::vector<std::size_t> ends_;  // where each message's bytes end in out_
    std::vector<Lease> leases_of_batch_;
};

}  // namespace delayq::cli
