// delayq get: one message by its id, in whatever state it is.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/time.hpp>
#include <delayq/validate.hpp>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/message.hpp"
#include "json_output.hpp"
#include "not_waiting.hpp"
#include "session.hpp"
#include "table.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct GetArgs {
    std::string queue;
    std::string id;
    bool json = false;
};

void line(const char* name, const std::string& value) {
    std::printf("  %-12s %s\n", name, value.c_str());
}

std::string at_text(TimePoint t, TimePoint now) {
    return format_time(t) + " (" + relative_time(t, now) + ")";
}

void print_message(const MessageInfo& m, TimePoint now) {
    line("id", m.id);
    line("state", std::string(to_string(m.state)));
    line("due", at_text(m.due, now));
    if (m.lease_deadline) line("lease ends", at_text(*m.lease_deadline, now));
    if (m.dead_at) line("dead since", at_text(*m.dead_at, now) + ", " + m.dead_reason);
    if (m.expire_at) line("expires", at_text(*m.expire_at, now));
    line("attempts", std::to_string(m.attempts) + " of " + std::to_string(m.max_attempts));
    if (!m.last_error.empty()) line("last error", m.last_error);
    line("payload", payload_text(m.payload));
}

int get(const GetArgs& a, const Invocation& invocation) {
    validate_message_id(a.id);
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const std::optional<MessageInfo> m = admin.get(a.id);
    if (!m) throw_not_waiting(a.queue, a.id, NotWaiting::kNotFound);
    if (a.json) {
        std::printf("%s\n", to_line(json::message_info_json(*m)).c_str());
    } else {
        print_message(*m, session.client().server_time());
    }
    return kExitOk;
}

}  // namespace

void add_get(CommandSet& set) {
    auto a = std::make_shared<GetArgs>();
    CLI::App& cmd = set.add(
        {.path = "get",
         .summary = "Show one message by its id, in any state",
         .details =
             R"(With --json, a Message object (docs/json.md), as `peek --json` prints them and the
service's GET /v1/queues/{queue}/messages/{id} answers. Exit status 1 when there is no such
message.

Examples:
  delayq get orders order-42
  delayq get orders order-42 --json | jq .attempts)"},
        [a](const Invocation& i) { return get(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("ID", a->id, "Message id")->required();
    cmd.add_flag("--json", a->json, "A Message object on one line");
}

}  // namespace delayq::cli
