// delayq queue: the group of the commands about a queue's settings and life.
#include "command_set.hpp"

namespace delayq::cli {

void add_queue(CommandSet& set) {
    set.add_group(
        {.path = "queue",
         .summary = "A queue's settings: show, change, pause, resume; delete a queue",
         .details =
             R"(A queue's settings live in Redis with it, so every producer and consumer agrees
on them: the default max attempts, the retry backoff, how many dead letters are kept and for how
long, and whether consumers are paused.

Examples:
  delayq queue info orders
  delayq queue set orders --max-attempts 10 --backoff-initial 5s
  delayq queue pause orders; delayq queue resume orders
  delayq queue delete orders --yes)"});
}

}  // namespace delayq::cli
