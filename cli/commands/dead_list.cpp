// delayq dead list: the dead letters, with their reason and last error.
#include <CLI/CLI.hpp>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "listing.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct DeadListArgs {
    std::string queue;
    std::size_t limit = 100;
    bool json = false;
};

int list(const DeadListArgs& a, const Invocation& invocation) {
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const TimePoint now = admin.stats().now;
    print_messages(list_messages(admin, State::kDead, a.limit), now, a.json);
    return kExitOk;
}

}  // namespace

void add_dead_list(CommandSet& set) {
    auto a = std::make_shared<DeadListArgs>();
    CLI::App& cmd = set.add({.path = "dead list",
                             .summary = "List dead letters with their reason and last error",
                             .details = R"(Examples:
  delayq dead list orders
  delayq dead list orders --json)"},
                            [a](const Invocation& i) { return list(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("--limit", a->limit, "At most this many (default 100)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
    cmd.add_flag("--json", a->json, "One JSON object per line");
}

}  // namespace delayq::cli
