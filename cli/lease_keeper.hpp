#pragma once

#include <condition_variable>
#include <cstdint>
#include <delayq/leases.hpp>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace delayq::cli {

// Keeps the leases of messages being written alive while the write takes long (a reader that
// stops reading), as the Consumer does for a running handler: once the same leases have been
// held for a third of the visibility timeout, each is extended by the timeout again, and again
// each third after that. Extension failures are ignored: a lease that runs out only means the
// message is delivered again. Start it after any SignalWatcher (it has a thread).
class LeaseKeeper {
  public:
    LeaseKeeper(Leases leases, Duration visibility);
    ~LeaseKeeper();
    LeaseKeeper(const LeaseKeeper&) = delete;
    LeaseKeeper& operator=(const LeaseKeeper&) = delete;

    // From now until release(), these leases are kept.
    void hold(std::span<const Lease> leases);
    // Ends the hold. An extension under way may still reach Redis after it; one that comes after
    // the ack or release of its lease answers kLost and changes nothing.
    void release();

  private:
    void run();

    Leases leases_;
    Duration period_;
    Duration visibility_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<Lease> held_;
    std::uint64_t generation_ = 0;  // grows with every hold() and release()
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace delayq::cli
