// delayq schedule trigger: one extra occurrence, due now.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "schedule_args.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_schedule_trigger(CommandSet& set) {
    auto a = std::make_shared<NameArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule trigger",
         .summary = "Send a schedule's message now, beside its own occurrences",
         .details = R"(Prints the id of the message sent (schedule:<name>:<unix ms of now>), due at
once. The schedule's own occurrences stay as they are and its runs do not count this one.
Exit status 1 when there is no such schedule.

Examples:
  delayq schedule trigger reports nightly
  id=$(delayq schedule trigger reports nightly) && delayq get reports "$id")"},
        [a](const Invocation& invocation) {
            Session session(invocation);
            Schedules schedules = schedules_of(session, *a);
            session.connect();
            const std::optional<TriggerResult> r = schedules.trigger(a->name);
            if (!r) throw_no_schedule(*a);
            std::printf("%s\n", r->id.c_str());
            return kExitOk;
        });
    add_name_arguments(cmd, *a);
}

}  // namespace delayq::cli
