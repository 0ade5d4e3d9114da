#pragma once

#include <pthread.h>

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
        thread_ = std::thread([this] {
            // Named so that top -H, perf and /proc tell a consumer's threads apart.
            pthread_setname_np(pthread_self(), thread_name());
            run();
        });
    }
    void join() {
        if (thread_.joinable()) thread_.join();
    }

  protected:
    virtual void run() = 0;  // must not throw
    // At most 15 characters (the kernel's limit).
    virtual const char* thread_name() const = 0;
    ConsumerShared& shared_;

  private:
    std::thread thread_;
};

}  // namespace delayq::detail
