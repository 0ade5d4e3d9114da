// delayq dead requeue: send dead letters again, due now, with fresh attempts.
#include <CLI/CLI.hpp>
#include <memory>

#include "command_set.hpp"
#include "dead_letters.hpp"

namespace delayq::cli {

void add_dead_requeue(CommandSet& set) {
    auto a = std::make_shared<DeadChangeArgs>();
    CLI::App& cmd = set.add(
        {.path = "dead requeue",
         .summary = "Send dead letters again, due now, with fresh attempts",
         .details = R"(Exit status 1 when some ids are not dead letters.

Examples:
  delayq dead requeue orders order-42
  delayq dead requeue orders --all)"},
        [a](const Invocation& i) { return change_dead_letters(*a, i, DeadChange::kRequeue); });
    add_dead_change_options(cmd, *a);
}

}  // namespace delayq::cli
