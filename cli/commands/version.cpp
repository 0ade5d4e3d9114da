// delayq version.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/version.hpp>

#include "commands/commands.hpp"

namespace delayq::cli {

void add_version(CLI::App& app, Commands& out) {
    CLI::App* cmd = app.add_subcommand("version", "Print the version");
    cmd->footer("Examples:\n  delayq version");
    out.push_back({cmd, [] {
                       std::printf("delayq %s\n", kVersion);
                       return 0;
                   }});
}

}  // namespace delayq::cli
