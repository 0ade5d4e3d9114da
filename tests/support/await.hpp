#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace delayq::test {

// How long the cluster and Sentinel fixtures wait for a change to settle. Generous: it only
// bounds a wait for something that must happen (a killed primary is replaced in 2 to 4 s with
// the fixtures' timeouts of 1 s); a slow machine never makes a correct fixture fail.
inline constexpr std::chrono::milliseconds kSettleDeadline{30'000};

// Asks `problem` until it answers "" (what it checks holds); past `deadline`, throws
// std::runtime_error saying what was awaited and the last problem. Redis tells no one when
// gossip has converged, so polling is the only way to learn it.
template <class Problem>
void await(std::string_view what, Problem problem,
           std::chrono::milliseconds deadline = kSettleDeadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
        std::string last = problem();
        if (last.empty()) return;
        if (std::chrono::steady_clock::now() >= end) {
            throw std::runtime_error("timed out waiting until " + std::string(what) + ": " + last);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace delayq::test
