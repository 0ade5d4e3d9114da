// delayq schedule pause: no occurrence is sent until the schedule is resumed.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "schedule_args.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_schedule_pause(CommandSet& set) {
    auto a = std::make_shared<NameArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule pause",
         .summary = "Pause a schedule: it sends nothing until resumed",
         .details = R"(The occurrence sent ahead is cancelled while it is still scheduled. Pausing a
paused schedule changes nothing. Exit status 1 when there is no such schedule.

Examples:
  delayq schedule pause reports nightly)"},
        [a](const Invocation& invocation) {
            Session session(invocation);
            Schedules schedules = schedules_of(session, *a);
            session.connect();
            if (!schedules.pause(a->name)) throw_no_schedule(*a);
            std::printf(
                "paused schedule %s in queue %s: nothing is sent until delayq schedule "
                "resume %s %s\n",
                a->name.c_str(), a->queue.c_str(), a->queue.c_str(), a->name.c_str());
            return kExitOk;
        });
    add_name_arguments(cmd, *a);
}

}  // namespace delayq::cli
