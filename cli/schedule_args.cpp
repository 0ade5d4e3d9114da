#include "schedule_args.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>

#include "command_set.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "json/schedule.hpp"
#include "json_output.hpp"
#include "schedule_text.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {

bool ScheduleTimingArgs::given() const { return cron_opt->count() > 0 || every_opt->count() > 0; }

void add_timing_options(CLI::App& cmd, ScheduleTimingArgs& a) {
    a.cron_opt = cmd.add_option("--cron", a.cron,
                                "Cron expression, 5 fields (minute hour day month weekday) or 6 "
                                "with seconds first; or @daily, @hourly ...")
                     ->type_name("EXPR");
    a.tz_opt =
        cmd.add_option("--tz", a.tz, "IANA time zone the cron expression runs in (default UTC)")
            ->type_name("ZONE");
    a.every_opt = cmd.add_option("--every", a.every,
                                 "Or an interval, at least " + format_duration(kMinScheduleEvery) +
                                     ": 30s, 5m, 1h30m")
                      ->type_name("DUR");
    a.cron_opt->excludes(a.every_opt);
    a.tz_opt->needs(a.cron_opt);
    a.start_opt = cmd.add_option("--start", a.start,
                                 "No occurrence before this time (RFC 3339 or unix ms); an "
                                 "interval counts from it")
                      ->type_name("TIME");
    a.end_opt = cmd.add_option("--end", a.end, "No occurrence after this time")->type_name("TIME");
}

void add_spec_options(CLI::App& cmd, ScheduleSpecArgs& a) {
    add_timing_options(cmd, a.timing);
    a.payload_opt =
        cmd.add_option("--payload", a.payload,
                       "Each occurrence's message (default: all of stdin when it is not "
                       "a terminal, else empty)")
            ->type_name("TEXT");
    cmd.add_option("--max-attempts", a.max_attempts,
                   "Deliveries of each message before it is dead-lettered (default: the queue's)")
        ->type_name("N")
        ->check(CLI::Range(1, kMaxAttempts));
    a.expire_opt = cmd.add_option("--expire-after", a.expire_after,
                                  "Dead-letter an occurrence not delivered this long after its "
                                  "time, rather than run it late (default: never)")
                       ->type_name("DUR");
    cmd.add_option("--max-runs", a.max_runs, "End the schedule after this many occurrences")
        ->type_name("N")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{kMaxScheduleRuns}));
    a.overlap = std::string(to_string(ScheduleSpec{}.overlap));
    cmd.add_option("--overlap", a.overlap,
                   "While the last occurrence's message is not yet handled: send the next anyway "
                   "(allow) or skip it (default " +
                       a.overlap + ")")
        ->type_name("allow|skip")
        ->check(CLI::IsMember({"allow", "skip"}));
    a.catch_up = std::string(to_string(ScheduleSpec{}.catch_up));
    cmd.add_option("--catch-up", a.catch_up,
                   "Occurrences missed while no scheduler ran: send none, the newest one, or all "
                   "(up to " +
                       std::to_string(kMaxCatchUp) + "; default " + a.catch_up + ")")
        ->type_name("none|one|all")
        ->check(CLI::IsMember({"none", "one", "all"}));
}

ScheduleSpec timing_from(const ScheduleTimingArgs& a) {
    if (!a.given()) throw UsageError("give --cron EXPR or --every DUR");
    ScheduleSpec spec;
    if (a.cron_opt->count() > 0) {
        // An empty expression would read as "no cron" below the command line.
        if (a.cron.empty()) throw UsageError("--cron: the expression is empty");
        spec.cron = a.cron;
        if (a.tz_opt->count() > 0) spec.tz = a.tz;
    } else {
        spec.every = duration_arg(a.every);
        // 0 would read as "no interval" below the command line; validate_schedule names the
        // rest of what is too short.
        if (spec.every.count() == 0) {
            throw UsageError("--every: the interval must be at least " +
                             format_duration(kMinScheduleEvery));
        }
    }
    if (a.start_opt->count() > 0) spec.start = time_arg(a.start);
    if (a.end_opt->count() > 0) spec.end = time_arg(a.end);
    return spec;
}

ScheduleSpec spec_from(const ScheduleSpecArgs& a) {
    ScheduleSpec spec = timing_from(a.timing);
    if (a.payload_opt->count() > 0) {
        spec.payload = a.payload;
    } else if (!is_terminal(0)) {
        spec.payload = read_input("-");
    }
    spec.max_attempts = a.max_attempts;
    if (a.expire_opt->count() > 0) spec.expire_after = duration_arg(a.expire_after);
    spec.max_runs = a.max_runs;
    // The options' checks admit only the words these parse.
    spec.overlap = parse_overlap(a.overlap).value_or(spec.overlap);
    spec.catch_up = parse_catch_up(a.catch_up).value_or(spec.catch_up);
    validate_schedule(spec, kDefaultMaxPayloadBytes);
    return spec;
}

void add_name_arguments(CLI::App& cmd, NameArgs& a) {
    cmd.add_option("QUEUE", a.queue, "Queue name")->required();
    cmd.add_option("NAME", a.name, "Schedule name, unique within its queue")->required();
}

Schedules schedules_of(Session& session, const NameArgs& a) {
    validate_schedule_name(a.name);
    return session.schedules(a.queue);
}

void throw_no_schedule(const NameArgs& a) {
    throw RuntimeFailure("no schedule " + a.name + " in queue " + a.queue);
}

void add_put_options(CLI::App& cmd, PutArgs& a) {
    add_name_arguments(cmd, a.target);
    add_spec_options(cmd, a.spec);
    cmd.add_flag("--json", a.json, "The outcome as one JSON object: {\"status\", \"next_ms\"}");
}

int put_schedule(const PutArgs& a, PutMode mode, const Invocation& invocation) {
    const NameArgs& t = a.target;
    // Every check before the first byte to Redis: bad input writes nothing.
    Session session(invocation);
    Schedules schedules = schedules_of(session, t);
    const ScheduleSpec spec = spec_from(a.spec);
    session.connect();
    const PutResult r =
        mode == PutMode::kAdd ? schedules.add(t.name, spec) : schedules.upsert(t.name, spec);
    if (r.status == PutStatus::kExists) {
        throw RuntimeFailure("schedule " + t.name + " exists in queue " + t.queue +
                             ": nothing changed (delayq schedule set changes it)");
    }
    const Json outcome = json::put_result_json(r);
    if (a.json) {
        std::printf("%s\n", to_line(outcome).c_str());
        return kExitOk;
    }
    const std::string next =
        r.next ? "next " + occurrence_text(*r.next, session.client().server_time(), spec.tz)
               : "no next occurrence";
    std::printf("%s schedule %s in queue %s: %s\n", outcome["status"].get<std::string>().c_str(),
                t.name.c_str(), t.queue.c_str(), next.c_str());
    return kExitOk;
}

}  // namespace delayq::cli
