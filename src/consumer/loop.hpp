#pragma once

#include <thread>

namespace delayq::detail {

struct ConsumerShared;

// The shape every background loop of a consumer shares: constructed on the shared state,
// started once, joined once. Stopping is signalled through the shared state, not here.
class Loop {
  public:
    explicit Loop(ConsumerShared& shared) : shared_(shared) {}
    virtual ~Loop() = default;
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    void start() {
        thread_ = std::thread([this] { run(); });
    }
    void join() {
        if (thread_.joinable()) thread_.join();
    }

  protected:
    virtual void run() = 0;  // must not throw
    ConsumerShared& shared_;

  private:
    std::thread thread_;
};

}  // namespace delayq::detail
