#pragma once

// The wall clock of the model test's redis-server: it stands still until the test moves it, so
// that the model knows the Redis clock ("now") exactly at every step. The server reads it
// through fake_clock_preload.cpp, preloaded with server_environment().
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace delayq::model {

class FakeClock {
  public:
    // Starts at `start_us` (unix microseconds). `preload` is the built fake_clock_preload.
    FakeClock(std::string preload, std::int64_t start_us);
    ~FakeClock();
    FakeClock(const FakeClock&) = delete;
    FakeClock& operator=(const FakeClock&) = delete;

    // What RedisServerOptions::environment needs for the server to run on this clock.
    std::vector<std::string> server_environment() const;

    std::int64_t now_us() const { return now_us_; }
    std::int64_t now_ms() const { return now_us_ / 1000; }
    // Moves the clock on by `us` (>= 0): it never goes back, as a healthy Redis clock does not.
    void advance(std::int64_t us);

  private:
    std::string preload_;
    std::filesystem::path file_;
    std::int64_t* mapped_ = nullptr;
    std::int64_t now_us_;
};

// Runs the clock on, 50 ms every 5 ms, while it lives: a Redis Cluster forms and heals on its
// servers' clock (a node calls the cluster ok only some seconds after it saw it whole), so the
// clock runs while it does, then stands still for the model. Nothing else may use the clock
// meanwhile.
class TickingClock {
  public:
    explicit TickingClock(FakeClock& clock);

  private:
    std::jthread thread_;
};

}  // namespace delayq::model
