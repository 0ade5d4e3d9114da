// delayq schedule resume: a paused schedule runs again from its next occurrence.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "schedule_args.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_schedule_resume(CommandSet& set) {
    auto a = std::make_shared<NameArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule resume",
         .summary = "Resume a paused schedule from its next occurrence",
         .details = R"(Sends the next occurrence after now: those that fell while it was paused are
not sent. Resuming a running schedule changes nothing. Exit status 1 when there is no such
schedule.

Examples:
  delayq schedule resume reports nightly)"},
        [a](const Invocation& invocation) {
            Session session(invocation);
            Schedules schedules = schedules_of(session, *a);
            session.connect();
            if (!schedules.resume(a->name)) throw_no_schedule(*a);
            std::printf("resumed schedule %s in queue %s\n", a->name.c_str(), a->queue.c_str());
            return kExitOk;
        });
    add_name_arguments(cmd, *a);
}

}  // namespace delayq::cli
