// delayq dead list|requeue|purge: the dead-letter set.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "commands/commands.hpp"
#include "errors.hpp"
#include "listing.hpp"
#include "message_lines.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct DeadArgs {
    std::string redis;
    std::string queue;
    std::vector<std::string> ids;
    bool all = false;
    std::size_t limit = 100;
    bool json = false;
};

int list(const DeadArgs& a) {
    Session session(a.redis);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const TimePoint now = admin.stats().now;
    print_messages(list_messages(admin, State::kDead, a.limit), now, a.json);
    return 0;
}

// requeue and purge: the ids named, or --all; every id is checked before anything is sent.
template <typename Change>
int change(const DeadArgs& a, const char* verb, Change change) {
    if (a.all == !a.ids.empty()) throw UsageError("give the ids of dead letters, or --all");
    for (const auto& id : a.ids) check_id(id);
    Session session(a.redis);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const std::size_t n = change(admin, DeadLetterSelector{.ids = a.ids, .all = a.all});
    if (a.all) {
        std::printf("%s %zu dead letter%s\n", verb, n, n == 1 ? "" : "s");
        return 0;
    }
    // An id named twice is one message.
    const std::size_t named = std::set<std::string>(a.ids.begin(), a.ids.end()).size();
    std::printf("%s %zu of %zu\n", verb, n, named);
    if (n < named) {
        std::fprintf(stderr, "delayq: %zu of the ids are not dead letters in queue %s\n", named - n,
                     a.queue.c_str());
        return kExitFailure;
    }
    return 0;
}

CLI::App* add_ids_command(CLI::App& dead, const char* name, const char* description, DeadArgs& a) {
    CLI::App* cmd = dead.add_subcommand(name, description);
    add_redis_option(*cmd, a.redis);
    cmd->add_option("QUEUE", a.queue, "Queue name")->required();
    cmd->add_option("ID", a.ids, "Ids of dead letters");
    cmd->add_flag("--all", a.all, "Every dead letter of the queue");
    return cmd;
}

}  // namespace

void add_dead(CLI::App& app, Commands& out) {
    CLI::App* dead = app.add_subcommand("dead", "Dead letters: list, requeue or purge them");
    dead->require_subcommand(1);
    dead->footer(R"(Messages go to the dead letters when their attempts run out, when they expire,
or when a handler rejects them. They stay there (up to 100000 per queue, 30 days) until they are
requeued or purged.

Examples:
  delayq dead list orders
  delayq dead requeue orders order-42 order-43
  delayq dead purge orders --all)");

    auto l = std::make_shared<DeadArgs>();
    CLI::App* list_cmd =
        dead->add_subcommand("list", "List dead letters with their reason and last error");
    add_redis_option(*list_cmd, l->redis);
    list_cmd->add_option("QUEUE", l->queue, "Queue name")->required();
    list_cmd->add_option("--limit", l->limit, "At most this many (default 100)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
    list_cmd->add_flag("--json", l->json, "One JSON object per line");
    list_cmd->footer("Examples:\n  delayq dead list orders\n  delayq dead list orders --json");
    out.push_back({list_cmd, [l] { return list(*l); }});

    auto r = std::make_shared<DeadArgs>();
    CLI::App* requeue = add_ids_command(
        *dead, "requeue", "Send dead letters again, due now, with fresh attempts", *r);
    requeue->footer(
        "Exit status 1 when some ids are not dead letters.\n\nExamples:\n"
        "  delayq dead requeue orders order-42\n  delayq dead requeue orders --all");
    out.push_back({requeue, [r] {
                       return change(*r, "requeued",
                                     [](QueueAdmin& q, const DeadLetterSelector& which) {
                                         return q.requeue(which);
                                     });
                   }});

    auto p = std::make_shared<DeadArgs>();
    CLI::App* purge = add_ids_command(*dead, "purge", "Delete dead letters for good", *p);
    purge->footer(
        "Exit status 1 when some ids are not dead letters.\n\nExamples:\n"
        "  delayq dead purge orders order-42\n  delayq dead purge orders --all");
    out.push_back({purge, [p] {
                       return change(*p, "purged",
                                     [](QueueAdmin& q, const DeadLetterSelector& which) {
                                         return q.purge(which);
                                     });
                   }});
}

}  // namespace delayq::cli
