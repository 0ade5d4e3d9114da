#pragma once

#include <chrono>
#include <string>

#include "cli/cli_runner.hpp"

// What the tests of the `delayq serve` process share: its --listen argument and the wait for it
// to serve.
namespace delayq::test {

inline std::string listen_arg(int port) { return "127.0.0.1:" + std::to_string(port); }

// Whether `serve` printed its "listening on" line (it serves from then on) within the deadline.
inline bool await_listening(CliProcess& serve,
                            std::chrono::seconds deadline = std::chrono::seconds(60)) {
    return serve.await_output(
        [](const std::string&, const std::string& err) {
            return err.find("listening on") != std::string::npos;
        },
        deadline);
}

}  // namespace delayq::test
