// delayq schedule set: creates a schedule or replaces its spec; an identical spec changes nothing.
#include <CLI/CLI.hpp>
#include <memory>

#include "command_set.hpp"
#include "schedule_args.hpp"

namespace delayq::cli {

void add_schedule_set(CommandSet& set) {
    auto a = std::make_shared<PutArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule set",
         .summary = "Create a schedule or replace its spec (created, updated or unchanged)",
         .details = R"(The options of delayq schedule add; what is not given takes its default, so
the command line is the whole spec. Prints created, updated or unchanged, and the next
occurrence. A changed spec cancels the occurrence sent ahead (while it is still scheduled) and
sends the new spec's next one; an identical spec writes nothing, so that a deploy may declare
its schedules at every start. Bad input exits 2 and writes nothing.

Examples:
  delayq schedule set reports nightly --cron '0 3 * * *' --tz Europe/Berlin --payload build
  delayq schedule set cache purge --every 30m --json)"},
        [a](const Invocation& i) { return put_schedule(*a, PutMode::kUpsert, i); });
    add_put_options(cmd, *a);
}

}  // namespace delayq::cli
