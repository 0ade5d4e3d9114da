// delayq schedule: the group of the commands about recurring schedules.
#include "command_set.hpp"

namespace delayq::cli {

void add_schedule(CommandSet& set) {
    set.add_group(
        {.path = "schedule",
         .summary = "Recurring schedules: a message per occurrence of a cron or an interval",
         .details =
             R"(A schedule is named within its queue and sends one ordinary message per
occurrence, id schedule:<name>:<unix ms>, due at the occurrence's instant. Adding or changing
one sends its first occurrence; the next ones are claimed by a running scheduler (delayq
schedule run, delayq serve, or a program's delayq::Scheduler): any number may run, and each
occurrence is sent once whichever claims it. Cron runs in the schedule's time zone: delayq schedule next
shows the instants a DST change gives, in UTC and in that zone.

Examples:
  delayq schedule add reports nightly --cron '30 2 * * *' --tz Europe/Berlin --payload build
  delayq schedule set cache purge --every 15m < purge.json
  delayq schedule list
  delayq schedule next reports nightly --count 3
  delayq schedule run)"});
}

}  // namespace delayq::cli
