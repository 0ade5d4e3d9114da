#pragma once

#include <stdexcept>

namespace delayq::cli {

// Exit statuses: the contract scripts rely on.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a runtime failure: Redis unreachable, a timeout, ...
inline constexpr int kExitUsage = 2;    // bad usage or bad input; nothing was written to Redis

// Bad usage or input found by the CLI itself, before anything is sent to Redis (exit 2).
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A failure the CLI detects at run time, such as an order that was not found (exit 1).
class RuntimeFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace delayq::cli
