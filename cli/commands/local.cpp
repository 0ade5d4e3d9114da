// delayq local: the group of the commands about the redis-server delayq manages itself.
#include "command_set.hpp"

namespace delayq::cli {

void add_local(CommandSet& set) {
    set.add_group(
        {.path = "local",
         .summary = "The local redis-server delayq manages itself",
         .details = R"(When neither --redis nor DELAYQ_REDIS_URL names a server, delayq runs its own
redis-server (found on PATH): started by the first command that needs it, reused by the others,
with its data (append-only file on, no eviction) and its unix socket in $DELAYQ_HOME, else
$XDG_DATA_HOME/delayq, else ~/.local/share/delayq. It listens on no TCP port.

Examples:
  delayq local status
  delayq local stop)"});
}

}  // namespace delayq::cli
