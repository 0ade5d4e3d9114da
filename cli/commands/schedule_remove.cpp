// delayq schedule remove: the schedule is gone; messages it sent stay in the queue.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "schedule_args.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_schedule_remove(CommandSet& set) {
    auto a = std::make_shared<NameArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule remove",
         .summary = "Remove a schedule (the messages it sent stay)",
         .details = R"(The occurrence sent ahead is cancelled while it is still scheduled; messages
already due, in flight or dead stay in the queue. Exit status 1 when there is no such schedule.

Examples:
  delayq schedule remove reports nightly)"},
        [a](const Invocation& invocation) {
            Session session(invocation);
            Schedules schedules = schedules_of(session, *a);
            session.connect();
            if (!schedules.remove(a->name)) throw_no_schedule(*a);
            std::printf("removed schedule %s from queue %s\n", a->name.c_str(), a->queue.c_str());
            return kExitOk;
        });
    add_name_arguments(cmd, *a);
}

}  // namespace delayq::cli
