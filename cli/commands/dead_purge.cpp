// delayq dead purge: delete dead letters for good.
#include <CLI/CLI.hpp>
#include <memory>

#include "command_set.hpp"
#include "dead_letters.hpp"

namespace delayq::cli {

void add_dead_purge(CommandSet& set) {
    auto a = std::make_shared<DeadChangeArgs>();
    CLI::App& cmd = set.add(
        {.path = "dead purge",
         .summary = "Delete dead letters for good",
         .details = R"(Exit status 1 when some ids are not dead letters.

Examples:
  delayq dead purge orders order-42
  delayq dead purge orders --all)"},
        [a](const Invocation& i) { return change_dead_letters(*a, i, DeadChange::kPurge); });
    add_dead_change_options(cmd, *a);
}

}  // namespace delayq::cli
