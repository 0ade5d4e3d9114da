// delayq functions load: load this build's function library on the server ahead of clients.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

std::string status_name(LoadStatus status) {
    switch (status) {
        case LoadStatus::kLoaded:
            return "loaded";
        case LoadStatus::kAlreadyLoaded:
            return "already_loaded";
        case LoadStatus::kOtherCode:
            return "other_code";
    }
    return "?";
}

int load(bool json, const Invocation& invocation) {
    Session session(invocation);
    session.connect();
    const LoadResult r = session.client().functions().load();
    if (json) {
        std::printf(
            "%s\n",
            to_line(Json{{"library", r.library}, {"status", status_name(r.status)}}).c_str());
    }
    switch (r.status) {
        case LoadStatus::kLoaded:
            if (!json) std::printf("loaded %s\n", r.library.c_str());
            return kExitOk;
        case LoadStatus::kAlreadyLoaded:
            if (!json) std::printf("%s is already loaded\n", r.library.c_str());
            return kExitOk;
        case LoadStatus::kOtherCode:
            break;
    }
    throw RuntimeFailure("the library " + r.library +
                         " on this server holds other code than this build's: nothing was "
                         "changed, and this build's clients run scripts instead of calling it. "
                         "FUNCTION DELETE " +
                         r.library + " once you know where it came from, then load again");
}

}  // namespace

void add_functions_load(CommandSet& set) {
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd = set.add(
        {.path = "functions load",
         .summary = "Load this build's function library on the server, unless it is there",
         .details =
             R"(Idempotent: a library already loaded with exactly this build's code is left as it
is. Never replaces a library: when one of this build's name holds other code, nothing is changed
and the exit status is 1. Needs FUNCTION LOAD and FUNCTION LIST (delayq acl --functions); at
maxmemory Redis refuses the load (clients then run scripts).

Examples:
  delayq functions load
  delayq functions load --json | jq -r .status)"},
        [json](const Invocation& i) { return load(*json, i); });
    cmd.add_flag("--json", *json, "One JSON object: the library and the status");
}

}  // namespace delayq::cli
