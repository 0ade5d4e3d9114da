// delayq cancel and delayq reschedule: change a message that is still waiting.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "commands/commands.hpp"
#include "errors.hpp"
#include "message_lines.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct ChangeArgs {
    std::string redis;
    std::string queue;
    std::string id;
    std::string delay;
    std::string at;
    CLI::Option* delay_opt = nullptr;
    CLI::Option* at_opt = nullptr;
};

// cancel and reschedule act only on waiting messages; for the others they change nothing.
[[noreturn]] void not_waiting(const ChangeArgs& a, bool found, bool in_flight) {
    if (!found) {
        throw RuntimeFailure("no message " + a.id + " in queue " + a.queue +
                             " (never sent, or already acked, cancelled or purged)");
    }
    if (in_flight) {
        throw RuntimeFailure("message " + a.id +
                             " is in flight (a consumer is handling it); nothing was changed");
    }
    throw RuntimeFailure("message " + a.id +
                         " is a dead letter (see delayq dead --help); nothing was changed");
}

int cancel(const ChangeArgs& a) {
    check_id(a.id);
    Session session(a.redis);
    Queue queue = session.queue(a.queue);
    session.connect();
    switch (queue.cancel(a.id)) {
        case CancelResult::kCancelled:
            std::printf("cancelled %s\n", a.id.c_str());
            return 0;
        case CancelResult::kNotFound:
            not_waiting(a, false, false);
        case CancelResult::kInFlight:
            not_waiting(a, true, true);
        case CancelResult::kDead:
            not_waiting(a, true, false);
    }
    return kExitFailure;
}

int reschedule(const ChangeArgs& a) {
    if (a.delay_opt->count() == 0 && a.at_opt->count() == 0) {
        throw UsageError("give the new due time with --delay or --at");
    }
    std::optional<std::chrono::milliseconds> delay;
    std::optional<std::chrono::system_clock::time_point> at;
    if (a.delay_opt->count() > 0) delay = duration_arg(a.delay);
    if (a.at_opt->count() > 0) at = time_arg(a.at);
    check_id(a.id);
    Session session(a.redis);
    Queue queue = session.queue(a.queue);
    session.connect();
    const RescheduleResult r = at ? queue.reschedule_at(a.id, *at) : queue.reschedule(a.id, *delay);
    switch (r.status) {
        case RescheduleStatus::kRescheduled:
            std::printf("rescheduled %s: due %s\n", a.id.c_str(), format_time(r.due).c_str());
            return 0;
        case RescheduleStatus::kNotFound:
            not_waiting(a, false, false);
        case RescheduleStatus::kInFlight:
            not_waiting(a, true, true);
        case RescheduleStatus::kDead:
            not_waiting(a, true, false);
    }
    return kExitFailure;
}

CLI::App* add_common(CLI::App& app, const char* name, const char* description, ChangeArgs& a) {
    CLI::App* cmd = app.add_subcommand(name, description);
    add_redis_option(*cmd, a.redis);
    cmd->add_option("QUEUE", a.queue, "Queue name")->required();
    cmd->add_option("ID", a.id, "Message id")->required();
    return cmd;
}

}  // namespace

void add_cancel(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ChangeArgs>();
    CLI::App* cmd = add_common(app, "cancel", "Delete a message that has not been delivered", *a);
    cmd->footer(R"(Exit status 1 when the message is not waiting: not found, in flight or dead.

Examples:
  delayq cancel orders order-42)");
    out.push_back({cmd, [a] { return cancel(*a); }});
}

void add_reschedule(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ChangeArgs>();
    CLI::App* cmd =
        add_common(app, "reschedule", "Move the due time of a message that is still waiting", *a);
    a->delay_opt = cmd->add_option("--delay", a->delay, "Due this long from now: 30s, 1h30m")
                       ->type_name("DUR");
    a->at_opt =
        cmd->add_option("--at", a->at, "Due at this time: RFC 3339 or unix ms")->type_name("TIME");
    a->delay_opt->excludes(a->at_opt);
    cmd->footer(R"(Exit status 1 when the message is not waiting: not found, in flight or dead.

Examples:
  delayq reschedule orders order-42 --delay 1h
  delayq reschedule orders order-42 --at 2030-01-02T03:04:05Z)");
    out.push_back({cmd, [a] { return reschedule(*a); }});
}

}  // namespace delayq::cli
