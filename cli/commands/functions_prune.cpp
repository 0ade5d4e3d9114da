// delayq functions prune: delete the delayq function libraries of other builds.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command_set.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct PruneArgs {
    bool yes = false;
    bool dry_run = false;
};

// Asks on the terminal; anything but y or yes is a no.
bool prune_confirmed(const std::vector<std::string>& libraries) {
    std::fprintf(stderr, "Delete %zu delayq function librar%s of other builds:\n", libraries.size(),
                 libraries.size() == 1 ? "y" : "ies");
    for (const std::string& name : libraries) std::fprintf(stderr, "  %s\n", name.c_str());
    std::fprintf(stderr,
                 "A client of such a build that still runs loads its library again. [y/N] ");
    std::fflush(stderr);
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
}

int prune(const PruneArgs& a, const Invocation& invocation) {
    if (!a.yes && !a.dry_run && !is_terminal(0)) {
        throw UsageError(
            "pruning function libraries asks for --yes when stdin is not a terminal "
            "(--dry-run shows what it would delete); nothing was deleted");
    }
    Session session(invocation);
    session.connect();
    const FunctionAdmin functions = session.client().functions();
    // What would go, first: what the user confirms is what is deleted, and nothing that
    // appeared in between.
    const PruneResult candidates = functions.prune({.dry_run = true});
    if (candidates.libraries.empty()) {
        std::printf("no delayq library of another build on this server\n");
        return kExitOk;
    }
    if (a.dry_run) {
        for (const std::string& name : candidates.libraries) {
            std::printf("would delete %s\n", name.c_str());
        }
        return kExitOk;
    }
    if (!a.yes && !prune_confirmed(candidates.libraries)) {
        std::fprintf(stderr, "delayq: no library was deleted\n");
        return kExitFailure;
    }
    const PruneResult r = functions.prune({.only = candidates.libraries});
    for (const std::string& name : r.libraries) std::printf("deleted %s\n", name.c_str());
    return kExitOk;
}

}  // namespace

void add_functions_prune(CommandSet& set) {
    auto a = std::make_shared<PruneArgs>();
    CLI::App& cmd = set.add(
        {.path = "functions prune",
         .summary = "Delete the delayq function libraries of other builds (FUNCTION DELETE)",
         .details =
             R"(Deletes every library named delayq_<layout>_<hash> except this build's; never
this build's and never a library of another name. Run it once every client runs this build: a
client of another build that still runs finds its functions gone and loads them again (it does
not fail). Asks first on a terminal; elsewhere it needs --yes. --dry-run lists what it would
delete and deletes nothing. Needs FUNCTION LIST and FUNCTION DELETE (delayq acl --functions).
Exit status 1 when not confirmed; 2 (bad usage, nothing deleted) without --yes or --dry-run
when stdin is not a terminal.

Examples:
  delayq functions prune --dry-run
  delayq functions prune --yes)"},
        [a](const Invocation& i) { return prune(*a, i); });
    cmd.add_flag("--yes,-y", a->yes, "Do not ask")->take_last();
    cmd.add_flag("--dry-run,-n", a->dry_run, "List what would be deleted; delete nothing");
}

}  // namespace delayq::cli
