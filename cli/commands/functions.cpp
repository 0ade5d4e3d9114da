// delayq functions: the group of the commands about delayq's Redis function library.
#include "command_set.hpp"

namespace delayq::cli {

void add_functions(CommandSet& set) {
    set.add_group(
        {.path = "functions",
         .summary = "The Redis function library: load it ahead, show what Redis holds, prune",
         .details =
             R"(delayq runs its operations as one Redis function library, named after the layout
version and a hash of its code (delayq_<layout>_<hash>), so that two releases load side by
side. Clients load it themselves where it is missing, when their user may; these commands are
for operators: load it ahead with a user that may (delayq acl --functions), see which builds'
libraries a server holds, and remove those no client uses any more. Clients that cannot use it
run the same operations as scripts (EVALSHA).

Examples:
  delayq functions status
  delayq functions load --redis redis://ops@redis.internal:6379
  delayq functions prune --dry-run)"});
}

}  // namespace delayq::cli
