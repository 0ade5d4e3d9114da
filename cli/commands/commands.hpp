#pragma once

#include <functional>
#include <vector>

#include "command_set.hpp"

namespace delayq::cli {

// The shape send and consume were written in, before CommandSet: each adds its subcommand to
// the app and says what runs. all.cpp adopts them into the CommandSet.
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};
using Commands = std::vector<Command>;

void add_send(CLI::App& app, Commands& out);
void add_consume(CLI::App& app, Commands& out, const TrailingCommand& trailing);

}  // namespace delayq::cli
