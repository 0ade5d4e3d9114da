// delayq schedule add: a new recurring schedule; a name that is taken changes nothing.
#include <CLI/CLI.hpp>
#include <memory>

#include "command_set.hpp"
#include "schedule_args.hpp"

namespace delayq::cli {

void add_schedule_add(CommandSet& set) {
    auto a = std::make_shared<PutArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule add",
         .summary = "Add a recurring schedule (exit 1 when the name is taken)",
         .details = R"(Give --cron EXPR (in --tz ZONE, UTC by default) or --every DUR. The payload
is --payload, else all of stdin when it is not a terminal. Prints "created" and the next
occurrence; the schedule's first occurrence is sent now, due at its instant, and a running
scheduler (delayq schedule run, delayq serve) sends the ones after it. A name the queue already has exits 1
and changes nothing (delayq schedule set replaces a spec). Bad input exits 2 and writes nothing.

Cron: minute hour day-of-month month day-of-week, or six fields with seconds first; ranges
(1-5), steps (*/15), lists (1,15), names (JAN, MON), ? in a day field, and @yearly @monthly
@weekly @daily @hourly. An interval counts from --start, else from when the schedule is added.

Examples:
  delayq schedule add reports nightly --cron '30 2 * * *' --tz Europe/Berlin --payload build
  delayq schedule add cache purge --every 15m --overlap skip < purge.json
  delayq schedule add mail digest --cron '0 8 * * MON-FRI' --expire-after 1h \
    --start 2030-01-01T00:00:00Z --end 2030-12-31T23:59:59Z)"},
        [a](const Invocation& i) { return put_schedule(*a, PutMode::kAdd, i); });
    add_put_options(cmd, *a);
}

}  // namespace delayq::cli
