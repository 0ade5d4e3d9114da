// delayq reschedule: move the due time of a message that is still waiting.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/validate.hpp>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "not_waiting.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct RescheduleArgs {
    std::string queue;
    std::string id;
    std::string delay;
    std::string at;
    CLI::Option* delay_opt = nullptr;
    CLI::Option* at_opt = nullptr;
};

int reschedule(const RescheduleArgs& a, const Invocation& invocation) {
    if (a.delay_opt->count() == 0 && a.at_opt->count() == 0) {
        throw UsageError("give the new due time with --delay or --at");
    }
    std::optional<std::chrono::milliseconds> delay;
    std::optional<TimePoint> at;
    if (a.delay_opt->count() > 0) delay = duration_arg(a.delay);
    if (a.at_opt->count() > 0) at = time_arg(a.at);
    validate_message_id(a.id);
    Session session(invocation);
    Queue queue = session.queue(a.queue);
    session.connect();
    const RescheduleResult r = at ? queue.reschedule_at(a.id, *at) : queue.reschedule(a.id, *delay);
    if (r.status != RescheduleStatus::kRescheduled) throw_not_waiting(a.queue, a.id, r.status);
    std::printf("rescheduled %s: due %s\n", a.id.c_str(), format_time(r.due).c_str());
    return kExitOk;
}

}  // namespace

void add_reschedule(CommandSet& set) {
    auto a = std::make_shared<RescheduleArgs>();
    CLI::App& cmd = set.add(
        {.path = "reschedule",
         .summary = "Move the due time of a message that is still waiting",
         .details = R"(Exit status 1 when the message is not waiting: not found, in flight or dead.

Examples:
  delayq reschedule orders order-42 --delay 1h
  delayq reschedule orders order-42 --at 2030-01-02T03:04:05Z)"},
        [a](const Invocation& i) { return reschedule(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("ID", a->id, "Message id")->required();
    a->delay_opt =
        cmd.add_option("--delay", a->delay, "Due this long from now: 30s, 1h30m")->type_name("DUR");
    a->at_opt =
        cmd.add_option("--at", a->at, "Due at this time: RFC 3339 or unix ms")->type_name("TIME");
    a->delay_opt->excludes(a->at_opt);
}

}  // namespace delayq::cli
