#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "push/pusher.hpp"

namespace delayq::cli {

// The options of every command that pushes (serve, push run, push test): where requests may
// connect and which certificates HTTPS receivers are verified with.
struct PushNetworkArgs {
    bool deny_private = false;
    std::vector<std::string> allow;
    std::string ca_file;

    // Validated (InvalidArgument: exit 2), into the pusher's options.
    void apply(push::PusherOptions& options) const;
};

void add_push_network_options(CLI::App& cmd, PushNetworkArgs& args);

}  // namespace delayq::cli
