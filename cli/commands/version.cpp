// delayq version.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/version.hpp>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"

namespace delayq::cli {

void add_version(CommandSet& set) {
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd =
        set.add({.path = "version",
                 .summary = "Print the version",
                 .details = "Examples:\n  delayq version\n  delayq version --json"},
                [json](const Invocation&) {
                    if (*json) {
                        std::printf("%s\n", to_line(Json{{"version", delayq::version()}}).c_str());
                    } else {
                        std::printf("delayq %s\n", delayq::version());
                    }
                    return kExitOk;
                });
    cmd.add_flag("--json", *json, "One JSON object");
}

}  // namespace delayq::cli
