#include "dead_letters.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <set>

#include "errors.hpp"
#include "message_lines.hpp"
#include "session.hpp"

namespace delayq::cli {

void add_dead_change_options(CLI::App& command, DeadChangeArgs& args) {
    command.add_option("QUEUE", args.queue, "Queue name")->required();
    command.add_option("ID", args.ids, "Ids of dead letters");
    command.add_flag("--all", args.all, "Every dead letter of the queue");
}

int change_dead_letters(const DeadChangeArgs& a, const Invocation& invocation, DeadChange change) {
    if (a.all == !a.ids.empty()) throw UsageError("give the ids of dead letters, or --all");
    for (const auto& id : a.ids) check_id(id);
    Session session(invocation.redis);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const DeadLetterSelector which{.ids = a.ids, .all = a.all};
    const std::size_t n =
        change == DeadChange::kRequeue ? admin.requeue(which) : admin.purge(which);
    const char* verb = change == DeadChange::kRequeue ? "requeued" : "purged";
    if (a.all) {
        std::printf("%s %zu dead letter%s\n", verb, n, n == 1 ? "" : "s");
        return kExitOk;
    }
    // An id named twice is one message.
    const std::size_t named = std::set<std::string>(a.ids.begin(), a.ids.end()).size();
    std::printf("%s %zu of %zu\n", verb, n, named);
    if (n < named) {
        std::fprintf(stderr, "delayq: %zu of the ids are not dead letters in queue %s\n", named - n,
                     a.queue.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace delayq::cli
