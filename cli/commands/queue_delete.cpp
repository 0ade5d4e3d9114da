// delayq queue delete: delete a queue with all its messages, dead letters, counters, settings.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct DeleteArgs {
    std::string queue;
    bool yes = false;
    bool force = false;
};

// Asks on the terminal; anything but y or yes is a no.
bool delete_confirmed(const std::string& queue, const QueueStats& s) {
    std::fprintf(stderr,
                 "Delete queue %s: %zu scheduled, %zu ready, %zu in flight and %zu dead messages, "
                 "its counters and its settings? [y/N] ",
                 queue.c_str(), s.scheduled, s.ready, s.in_flight, s.dead);
    std::fflush(stderr);
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
}

int delete_queue(const DeleteArgs& a, const Invocation& invocation) {
    if (!a.yes && !is_terminal(0)) {
        throw UsageError("deleting queue " + a.queue +
                         " asks for --yes when stdin is not a terminal; nothing was deleted");
    }
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    if (!a.yes && !delete_confirmed(a.queue, admin.stats())) {
        std::fprintf(stderr, "delayq: queue %s was not deleted\n", a.queue.c_str());
        return kExitFailure;
    }
    const DeleteResult r = admin.delete_queue(a.force);
    if (r.status == DeleteStatus::kInFlight) {
        throw RuntimeFailure("queue " + a.queue + " has " + std::to_string(r.in_flight) +
                             " messages in flight; nothing was deleted (--force deletes them "
                             "too, and their consumers' acks then find nothing)");
    }
    std::printf("deleted queue %s: %zu pending, %zu in flight and %zu dead messages\n",
                a.queue.c_str(), r.pending, r.in_flight, r.dead);
    return kExitOk;
}

}  // namespace

void add_queue_delete(CommandSet& set) {
    auto a = std::make_shared<DeleteArgs>();
    CLI::App& cmd = set.add(
        {.path = "queue delete",
         .summary = "Delete a queue: its messages, dead letters, counters and settings",
         .details =
             R"(Asks first on a terminal; elsewhere it needs --yes. Refused while messages are in
flight (a consumer holds them) unless --force. Exit status 1 when refused or not confirmed;
2 (bad usage, nothing deleted) without --yes when stdin is not a terminal.

Examples:
  delayq queue delete orders
  delayq queue delete orders --yes --force)"},
        [a](const Invocation& i) { return delete_queue(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_flag("--yes,-y", a->yes, "Do not ask")->take_last();
    cmd.add_flag("--force", a->force, "Delete even while messages are in flight");
}

}  // namespace delayq::cli
