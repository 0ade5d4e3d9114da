// delayq schedule next: the instants a schedule, or a spec on the command line, sends at.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <delayq/limits.hpp>
#include <memory>
#include <optional>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/schedule.hpp"
#include "json_output.hpp"
#include "schedule_args.hpp"
#include "schedule_text.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct NextArgs {
    std::string queue;
    std::string name;
    ScheduleTimingArgs timing;
    std::size_t count = 5;
    std::string from;
    bool json = false;
    CLI::Option* from_opt = nullptr;
};

void print(const std::vector<TimePoint>& occurrences, const std::string& zone, bool json) {
    if (json) {
        std::printf("%s\n", to_line(json::occurrences_json(occurrences)).c_str());
    } else {
        print_occurrences(occurrences, zone);
    }
}

// From a spec given on the command line: computed here, Redis not contacted.
int next_of_spec(const NextArgs& a) {
    const ScheduleSpec spec = timing_from(a.timing);
    const TimePoint from = a.from_opt->count() > 0
                               ? time_arg(a.from)
                               : std::chrono::floor<Duration>(std::chrono::system_clock::now());
    // An interval without --start counts from the epoch here: a stored one, from its first
    // upsert (delayq schedule next QUEUE NAME).
    print(next_occurrences(spec, from, a.count), spec.tz, a.json);
    return kExitOk;
}

int next_of_schedule(const NextArgs& a, const Invocation& invocation) {
    const NameArgs target{a.queue, a.name};
    std::optional<TimePoint> from;
    if (a.from_opt->count() > 0) from = time_arg(a.from);
    Session session(invocation);
    Schedules schedules = schedules_of(session, target);
    session.connect();
    // The zone only for the wall-clock column: --json has none.
    std::string zone = "UTC";
    if (!a.json) {
        const std::optional<ScheduleInfo> info = schedules.get(a.name);
        if (!info) throw_no_schedule(target);
        zone = info->spec.tz;
    }
    const auto occurrences = schedules.next(a.name, a.count, from);
    if (!occurrences) throw_no_schedule(target);
    print(*occurrences, zone, a.json);
    return kExitOk;
}

int next(const NextArgs& a, const Invocation& invocation) {
    if (a.timing.given()) {
        if (!a.queue.empty()) {
            throw UsageError("give QUEUE NAME or --cron/--every, not both");
        }
        return next_of_spec(a);
    }
    if (a.queue.empty() || a.name.empty()) {
        throw UsageError("give QUEUE NAME, or a spec: --cron EXPR [--tz ZONE] or --every DUR");
    }
    if (a.timing.start_opt->count() > 0 || a.timing.end_opt->count() > 0) {
        throw UsageError(
            "--start and --end go with --cron or --every: a stored schedule has its own");
    }
    return next_of_schedule(a, invocation);
}

}  // namespace

void add_schedule_next(CommandSet& set) {
    auto a = std::make_shared<NextArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule next",
         .summary = "Show the next occurrences of a schedule, or of a cron or interval given",
         .details = R"(Or: delayq schedule next --cron EXPR [--tz ZONE] [--start TIME] [--end TIME]
    (or --every DUR) [--count N] [--from TIME]

One instant a line in UTC and, for a cron in a zone other than UTC, the wall-clock time there
beside it: what a DST day does to a schedule shows before it happens. A stored schedule's
occurrences are computed from its spec (nothing is written), after --from or the Redis clock's
now; max runs is not applied. A spec on the command line needs no Redis: after --from or this
machine's clock, an interval counting from --start, else from 1970. With --json,
{"occurrences": [{"ms", "time"}...]}. Exit status 1 when there is no such schedule.

Examples:
  delayq schedule next reports nightly
  delayq schedule next --cron '30 2 * * *' --tz Europe/Berlin --from 2024-03-30T12:00:00Z --count 2
  delayq schedule next --cron '0 9 * * MON-FRI' --tz America/New_York --json)"},
        [a](const Invocation& i) { return next(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name");
    cmd.add_option("NAME", a->name, "Schedule name");
    add_timing_options(cmd, a->timing);
    cmd.add_option("--count", a->count, "How many (default 5)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, kMaxBatch));
    a->from_opt = cmd.add_option("--from", a->from,
                                 "Occurrences after this time (RFC 3339 or unix ms; default: now)")
                      ->type_name("TIME");
    cmd.add_flag("--json", a->json, "One JSON object: {\"occurrences\": [{\"ms\", \"time\"}...]}");
}

}  // namespace delayq::cli
