// delayq queue resume: let consumers lease messages again (sleeping consumers wake at once).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_queue_resume(CommandSet& set) {
    auto queue = std::make_shared<std::string>();
    CLI::App& cmd =
        set.add({.path = "queue resume",
                 .summary = "Let consumers lease messages again (sleeping consumers wake at once)",
                 .details = R"(Resuming a queue that is not paused changes nothing.

Examples:
  delayq queue resume orders)"},
                [queue](const Invocation& invocation) {
                    Session session(invocation);
                    QueueAdmin admin = session.admin(*queue);
                    session.connect();
                    admin.resume();
                    std::printf("resumed %s\n", queue->c_str());
                    return kExitOk;
                });
    cmd.add_option("QUEUE", *queue, "Queue name")->required();
}

}  // namespace delayq::cli
