#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace delayq::cli {

// Turns SIGINT and SIGTERM into a call of `on_signal` on a thread of its own, where it may take
// locks and stop a consumer (a signal handler may do neither). Construct it before any other
// thread is started: the signals are blocked in the constructing thread and every thread
// started after it, and waited for here. A second signal ends the process at once (status
// 128 + signal), for when a graceful stop takes too long; leased messages then go back to the
// queue when their leases run out.
//
// The library's ConsumerOptions::stop_on_signals does the graceful part too, but gives no way to
// learn that a stop was requested, which `consume --max` and the demo need.
class SignalWatcher {
  public:
    explicit SignalWatcher(std::function<void(int)> on_signal);
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher&) = delete;
    SignalWatcher& operator=(const SignalWatcher&) = delete;

  private:
    void run();

    std::function<void(int)> on_signal_;
    std::atomic<bool> done_{false};
    std::thread thread_;
};

}  // namespace delayq::cli
