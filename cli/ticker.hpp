#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace delayq::cli {

// Calls `tick` every `every` on a thread of its own, and once more when destroyed (what
// happened since the last call): the long-running commands' lines on stderr.
class Ticker {
  public:
    Ticker(std::chrono::milliseconds every, std::function<void()> tick);
    ~Ticker();
    Ticker(const Ticker&) = delete;
    Ticker& operator=(const Ticker&) = delete;

  private:
    std::chrono::milliseconds every_;
    std::function<void()> tick_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace delayq::cli
