// delayq peek: look at a queue's messages without taking them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "listing.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct PeekArgs {
    std::string queue;
    std::string state;
    std::size_t limit = 20;
    bool json = false;
};

std::vector<State> states_of(const std::string& text) {
    // Without --state: what is waiting, in the order it will go out.
    if (text.empty()) return {State::kReady, State::kScheduled};
    if (text == "pending") return {State::kScheduled};
    if (text == "inflight") return {State::kInFlight};
    if (auto s = parse_state(text)) return {*s};
    throw UsageError("unknown state \"" + text +
                     "\": expected scheduled (or pending), ready, in_flight (or inflight) or dead");
}

int peek(const PeekArgs& a, const Invocation& invocation) {
    const std::vector<State> states = states_of(a.state);
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const TimePoint now = admin.stats().now;
    std::vector<MessageInfo> messages;
    for (State s : states) {
        if (messages.size() >= a.limit) break;
        auto more = list_messages(admin, s, a.limit - messages.size());
        messages.insert(messages.end(), more.begin(), more.end());
    }
    print_messages(messages, now, a.json);
    return kExitOk;
}

}  // namespace

void add_peek(CommandSet& set) {
    auto a = std::make_shared<PeekArgs>();
    CLI::App& cmd = set.add(
        {.path = "peek",
         .summary = "Show a queue's messages without taking them",
         .details = R"(Messages come in the order they leave their state: due time, lease deadline,
time of death.

Examples:
  delayq peek orders
  delayq peek orders --state in_flight
  delayq peek orders --state dead --limit 5 --json)"},
        [a](const Invocation& i) { return peek(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("--state", a->state,
                   "scheduled (alias pending), ready, in_flight (alias inflight) or dead "
                   "(default: ready, then scheduled)")
        ->type_name("scheduled|ready|in_flight|dead");
    cmd.add_option("--limit", a->limit, "At most this many messages (default 20)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
    cmd.add_flag("--json", a->json, "One JSON object per line, with the full payload");
}

}  // namespace delayq::cli
