// delayq schedule get: one schedule's spec and state.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/schedule.hpp"
#include "json_output.hpp"
#include "schedule_args.hpp"
#include "schedule_text.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct GetArgs {
    NameArgs target;
    bool json = false;
};

int get(const GetArgs& a, const Invocation& invocation) {
    Session session(invocation);
    Schedules schedules = schedules_of(session, a.target);
    session.connect();
    const std::optional<ScheduleInfo> info = schedules.get(a.target.name);
    if (!info) throw_no_schedule(a.target);
    if (a.json) {
        std::printf("%s\n", to_line(json::schedule_json(a.target.queue, *info)).c_str());
    } else {
        print_schedule(a.target.queue, *info, session.client().server_time());
    }
    return kExitOk;
}

}  // namespace

void add_schedule_get(CommandSet& set) {
    auto a = std::make_shared<GetArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule get",
         .summary = "Show a schedule: its spec, next occurrence, last one and counts",
         .details =
             R"(The next occurrence and the last one sent are shown in UTC and, for a cron in a
zone of its own, in that zone too; the last message's outcome is where it is now (pending,
in_flight, dead with the reason, or gone once acked). Runs counts the occurrences sent, missed
those no scheduler sent in time (see --catch-up), skipped those --overlap skip held back. With
--json, a Schedule object (docs/cli.md). Exit status 1 when there is no such schedule.

Examples:
  delayq schedule get reports nightly
  delayq schedule get reports nightly --json | jq .next_ms)"},
        [a](const Invocation& i) { return get(*a, i); });
    add_name_arguments(cmd, a->target);
    cmd.add_flag("--json", a->json, "A Schedule object on one line");
}

}  // namespace delayq::cli
