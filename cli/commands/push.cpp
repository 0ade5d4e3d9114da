// delayq push: the group of the commands about push targets.
#include "command_set.hpp"

namespace delayq::cli {

void add_push(CommandSet& set) {
    set.add_group(
        {.path = "push",
         .summary = "Push targets: HTTP endpoints a queue's due messages are sent to",
         .details =
             R"(A queue with a push target has its due messages sent, each as one HTTP request
signed as Standard Webhooks define, to the target's URL, and acked, retried or dead-lettered by
the answer (docs/push.md). The target is stored in Redis, so every process agrees on it; its
header values and secrets are write-only: push get shows the header names and how many
secrets there are, never their values.

Examples:
  delayq push set orders --url https://shop.example.com/hooks/expire --secret-file wh.key
  delayq push get orders
  delayq push remove orders)"});
}

}  // namespace delayq::cli
