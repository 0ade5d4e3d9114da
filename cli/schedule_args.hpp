#pragma once

#include <cstdint>
#include <delayq/schedules.hpp>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace delayq::cli {

struct Invocation;
class Session;

// QUEUE NAME: the schedule a command acts on.
struct NameArgs {
    std::string queue;
    std::string name;
};

void add_name_arguments(CLI::App& cmd, NameArgs& a);
// The queue's schedules, both names checked (InvalidArgument: exit 2) and nothing contacted.
Schedules schedules_of(Session& session, const NameArgs& a);
// RuntimeFailure (exit 1): there is no such schedule.
[[noreturn]] void throw_no_schedule(const NameArgs& a);

// When a schedule's occurrences are: --cron [--tz] or --every, within --start and --end.
// `schedule add` and `set` declare them with the message options below; `schedule next`
// computes from them alone.
struct ScheduleTimingArgs {
    std::string cron;
    std::string tz;
    std::string every;
    std::string start;
    std::string end;
    CLI::Option* cron_opt = nullptr;
    CLI::Option* tz_opt = nullptr;
    CLI::Option* every_opt = nullptr;
    CLI::Option* start_opt = nullptr;
    CLI::Option* end_opt = nullptr;

    bool given() const;  // --cron or --every
};

// What each occurrence sends, and when the schedule stops or holds back.
struct ScheduleSpecArgs {
    ScheduleTimingArgs timing;
    std::string payload;
    int max_attempts = 0;
    std::string expire_after;
    std::uint64_t max_runs = 0;
    std::string overlap = "allow";
    std::string catch_up = "one";
    CLI::Option* payload_opt = nullptr;
    CLI::Option* expire_opt = nullptr;
};

void add_timing_options(CLI::App& cmd, ScheduleTimingArgs& a);
void add_spec_options(CLI::App& cmd, ScheduleSpecArgs& a);

// The timing fields of a spec; throws UsageError for bad text and for both or neither of
// --cron and --every. validate_schedule checks the rest.
ScheduleSpec timing_from(const ScheduleTimingArgs& a);
// The whole spec, the payload from --payload, else from stdin when it is not a terminal (a
// schedule declared at a prompt sends empty messages rather than wait for typing), checked with
// validate_schedule against the payload limit every queue handle has by default.
ScheduleSpec spec_from(const ScheduleSpecArgs& a);

// `schedule add` and `schedule set`: QUEUE NAME, the spec, --json.
struct PutArgs {
    NameArgs target;
    ScheduleSpecArgs spec;
    bool json = false;
};

void add_put_options(CLI::App& cmd, PutArgs& a);

enum class PutMode { kAdd, kUpsert };

// Checks everything before connecting, then adds or upserts and prints the outcome and the
// next occurrence. kExists (an add of a name that is taken) throws RuntimeFailure: exit 1.
int put_schedule(const PutArgs& a, PutMode mode, const Invocation& invocation);

}  // namespace delayq::cli
