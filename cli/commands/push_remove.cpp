// delayq push remove: the queue has no push target any more; its messages stay.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_push_remove(CommandSet& set) {
    auto queue = std::make_shared<std::string>();
    CLI::App& cmd = set.add(
        {.path = "push remove",
         .summary = "Remove a queue's push target and its credentials (the messages stay)",
         .details = R"(Nothing pushes the queue's messages any more; they stay in the queue, for
consumers or a later target. Needs the admin role (delayq acl). Exit status 1 when the queue has
no push target.

Examples:
  delayq push remove orders)"},
        [queue](const Invocation& invocation) {
            Session session(invocation);
            PushTargets push = session.push_targets(*queue);
            session.connect();
            if (!push.remove()) throw RuntimeFailure("queue " + *queue + " has no push target");
            std::printf("removed the push target of queue %s\n", queue->c_str());
            return kExitOk;
        });
    cmd.add_option("QUEUE", *queue, "Queue name")->required();
}

}  // namespace delayq::cli
