#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "consumer/completer.hpp"
#include "consumer/dispatcher.hpp"
#include "consumer/extender.hpp"
#include "consumer/notifier.hpp"
#include "consumer/shared.hpp"
#include "consumer/workers.hpp"

namespace delayq::detail {

// Owns a consumer's threads and runs its stop sequence.
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

    ConsumerShared shared_;
    Dispatcher dispatcher_{shared_};
    Notifier notifier_{shared_};
    Completer completer_{shared_};
    Extender extender_{shared_};
    std::vector<std::unique_ptr<Worker>> workers_;
    std::thread supervisor_;
    bool started_ = false;
};

}  // namespace delayq::detail
