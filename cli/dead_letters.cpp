#include "dead_letters.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <delayq/limits.hpp>
#include <delayq/validate.hpp>
#include <set>

#include "errors.hpp"
#include "io.hpp"
#include "progress.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

// Dead letters per call when a progress bar follows the work: what one script call of the
// library takes. Less than this is over too soon for a bar.
// Ids per requeue or purge call, and dead letters per page.
constexpr std::size_t kChunk = kMaxBatch;

std::size_t apply(QueueAdmin& admin, DeadChange change, const DeadLetterSelector& which) {
    return change == DeadChange::kRequeue ? admin.requeue(which) : admin.purge(which);
}

std::size_t change_ids(QueueAdmin& admin, DeadChange change, const std::vector<std::string>& ids,
                       const char* verb) {
    if (ids.size() <= kChunk || !is_terminal(STDERR_FILENO)) {
        return apply(admin, change, {.ids = ids});
    }
    Progress progress(verb, ids.size());
    std::size_t moved = 0;
    for (std::size_t i = 0; i < ids.size(); i += kChunk) {
        const auto end =
            ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), i + kChunk));
        moved += apply(admin, change, {.ids = {ids.begin() + static_cast<std::ptrdiff_t>(i), end}});
        progress.advance(std::min(kChunk, ids.size() - i));
    }
    return moved;
}

std::size_t change_all(QueueAdmin& admin, DeadChange change, const char* verb) {
    std::size_t moved = 0;
    const std::size_t dead = is_terminal(STDERR_FILENO) ? admin.stats().dead : 0;
    if (dead > kChunk) {
        // For the bar, the oldest letters a page at a time, by id, as many as there were; the
        // call with `all` that follows takes what is left (letters that died meanwhile, orphaned
        // index entries), so that --all means what it means without a bar. (Requeued letters a
        // consumer kills again at once must not keep this loop going.)
        Progress progress(verb, dead);
        while (moved < dead) {
            MessagePage page = admin.list(State::kDead, {.limit = kChunk});
            std::vector<std::string> ids;
            for (auto& m : page.messages) ids.push_back(std::move(m.id));
            const std::size_t n = ids.empty() ? 0 : apply(admin, change, {.ids = ids});
            if (n == 0) break;
            moved += n;
            progress.advance(n);
        }
    }
    return moved + apply(admin, change, {.all = true});
}

}  // namespace

void add_dead_change_options(CLI::App& command, DeadChangeArgs& args) {
    command.add_option("QUEUE", args.queue, "Queue name")->required();
    command.add_option("ID", args.ids, "Ids of dead letters");
    command.add_flag("--all", args.all, "Every dead letter of the queue");
}

int change_dead_letters(const DeadChangeArgs& a, const Invocation& invocation, DeadChange change) {
    if (a.all == !a.ids.empty()) throw UsageError("give the ids of dead letters, or --all");
    for (const auto& id : a.ids) validate_message_id(id);
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const char* verb = change == DeadChange::kRequeue ? "requeued" : "purged";
    if (a.all) {
        const std::size_t n = change_all(admin, change, verb);
        std::printf("%s %zu dead letter%s\n", verb, n, n == 1 ? "" : "s");
        return kExitOk;
    }
    // An id named twice is one message.
    const std::set<std::string> unique(a.ids.begin(), a.ids.end());
    const std::size_t named = unique.size();
    const std::size_t n = change_ids(admin, change, {unique.begin(), unique.end()}, verb);
    std::printf("%s %zu of %zu\n", verb, n, named);
    if (n < named) {
        std::fprintf(stderr, "delayq: %zu of the ids are not dead letters in queue %s\n", named - n,
                     a.queue.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace delayq::cli
