// delayq queue pause: stop consumers from leasing messages (sends, acks and inspection go on).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_queue_pause(CommandSet& set) {
    auto queue = std::make_shared<std::string>();
    CLI::App& cmd = set.add(
        {.path = "queue pause",
         .summary = "Stop consumers from leasing messages (sends, acks and inspection go on)",
         .details = R"(Leases already held run their course; lapsed leases still go back to pending.

Examples:
  delayq queue pause orders)"},
        [queue](const Invocation& invocation) {
            Session session(invocation);
            QueueAdmin admin = session.admin(*queue);
            session.connect();
            admin.pause();
            std::printf("paused %s: consumers lease nothing until delayq queue resume %s\n",
                        queue->c_str(), queue->c_str());
            return kExitOk;
        });
    cmd.add_option("QUEUE", *queue, "Queue name")->required();
}

}  // namespace delayq::cli
