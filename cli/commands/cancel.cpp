// delayq cancel: delete a message that is still waiting.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/validate.hpp>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "not_waiting.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct CancelArgs {
    std::string queue;
    std::string id;
};

int cancel(const CancelArgs& a, const Invocation& invocation) {
    validate_message_id(a.id);
    Session session(invocation);
    Queue queue = session.queue(a.queue);
    session.connect();
    const CancelResult r = queue.cancel(a.id);
    if (r != CancelResult::kCancelled) throw_not_waiting(a.queue, a.id, r);
    std::printf("cancelled %s\n", a.id.c_str());
    return kExitOk;
}

}  // namespace

void add_cancel(CommandSet& set) {
    auto a = std::make_shared<CancelArgs>();
    CLI::App& cmd = set.add(
        {.path = "cancel",
         .summary = "Delete a message that has not been delivered",
         .details = R"(Exit status 1 when the message is not waiting: not found, in flight or dead.

Examples:
  delayq cancel orders order-42)"},
        [a](const Invocation& i) { return cancel(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("ID", a->id, "Message id")->required();
}

}  // namespace delayq::cli
