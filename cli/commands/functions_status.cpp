// delayq functions status: the delayq function libraries a server holds.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "table.hpp"

namespace delayq::cli {
namespace {

Json status_json(const FunctionsStatus& s) {
    Json libraries = Json::array();
    for (const LibraryInfo& l : s.libraries) {
        libraries.push_back({{"name", l.name},
                             {"this_build", l.this_build},
                             {"code_matches", l.code_matches},
                             {"functions", l.functions}});
    }
    return {{"library", s.library},
            {"loaded", s.loaded},
            {"libraries", libraries},
            {"missing_on", s.missing_on}};
}

// What this build's line says of its library.
std::string ours_text(const FunctionsStatus& s) {
    if (s.loaded) return "loaded";
    for (const LibraryInfo& l : s.libraries) {
        if (l.this_build) return "OTHER CODE under its name: not called, clients run scripts";
    }
    return "not loaded (clients load it, or run scripts if they may not)";
}

int show_functions_status(bool json, const Invocation& invocation) {
    Session session(invocation);
    session.connect();
    const FunctionsStatus s = session.client().functions().status();
    if (json) {
        std::printf("%s\n", to_line(status_json(s)).c_str());
        return s.loaded ? kExitOk : kExitFailure;
    }
    std::printf("this build: %s, %s\n", s.library.c_str(), ours_text(s).c_str());
    // On a cluster, the primaries whose slots' calls load it or run scripts.
    if (!s.missing_on.empty()) {
        std::string nodes;
        for (const std::string& node : s.missing_on) nodes += (nodes.empty() ? "" : ", ") + node;
        std::printf("not loaded on: %s\n", nodes.c_str());
    }
    Table table({"LIBRARY", "THIS_BUILD", "FUNCTIONS"});
    for (const LibraryInfo& l : s.libraries) {
        const std::string mine = !l.this_build ? "no" : l.code_matches ? "yes" : "other code";
        table.add({l.name, mine, std::to_string(l.functions.size())});
    }
    if (table.empty()) {
        std::printf("no delayq library on this server\n");
    } else {
        std::printf("%s", table.render(colour_stdout()).c_str());
    }
    return s.loaded ? kExitOk : kExitFailure;
}

}  // namespace

void add_functions_status(CommandSet& set) {
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd = set.add(
        {.path = "functions status",
         .summary = "Show the server's delayq function libraries (exit status 1 when this "
                    "build's is not loaded)",
         .details =
             R"(Lists every library named delayq_<layout>_<hash>, whether it is this build's (and
holds exactly this build's code), and how many functions it has. Loads and deletes nothing;
needs FUNCTION LIST, which every delayq acl role has.

Examples:
  delayq functions status
  delayq functions status --json | jq -r '.libraries[].name')"},
        [json](const Invocation& i) { return show_functions_status(*json, i); });
    cmd.add_flag("--json", *json, "One JSON object: this build's library and every one listed");
}

}  // namespace delayq::cli
