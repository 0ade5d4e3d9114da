#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "loop.hpp"
#include "redis/event_fd.hpp"
#include "redis/sentinel.hpp"

namespace delayq::detail {

// Listens to the sentinels' +switch-master channel, so that a Sentinel client learns of a
// failover when the sentinels make it, not only when a call meets the demoted or dead master:
// a consumer that only waits would otherwise wait on the old master. One thread and one
// connection, to one sentinel at a time; a sentinel that fails or stops answering is left for
// the next, with back-off. `switched` runs on this thread when the master changed, and after
// each subscription (a switch may have been missed before it); it must not throw.
class SentinelWatch : public Loop {
  public:
    SentinelWatch(std::vector<Endpoint> sentinels, std::string master_name, SentinelConnect connect,
                  std::function<void()> switched)
        : sentinels_(std::move(sentinels)),
          master_name_(std::move(master_name)),
          connect_(std::move(connect)),
          switched_(std::move(switched)) {}

    void request_stop() override;

  private:
    void run() override;
    const char* thread_name() const override { return "dq-sentinel"; }
    // One connection's life: subscribe, then hear messages until it fails (throws) or stop.
    void session(const Endpoint& sentinel);

    const std::vector<Endpoint> sentinels_;
    const std::string master_name_;
    const SentinelConnect connect_;
    const std::function<void()> switched_;
    EventFd bell_;  // the stop
    std::atomic<bool> stop_{false};
};

}  // namespace delayq::detail
