// delayq dead: the group of the dead-letter commands.
#include "command_set.hpp"

namespace delayq::cli {

void add_dead(CommandSet& set) {
    set.add_group(
        {.path = "dead",
         .summary = "Dead letters: list, requeue or purge them",
         .details =
             R"(Messages go to the dead letters when their attempts run out, when they expire,
or when a handler rejects them. They stay there (by default up to 100000 per queue, 30 days; see
delayq queue set --help) until they are requeued or purged.

Examples:
  delayq dead list orders
  delayq dead requeue orders order-42 order-43
  delayq dead purge orders --all)"});
}

}  // namespace delayq::cli
