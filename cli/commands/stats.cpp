// delayq stats: counts per state and lifetime totals.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct StatsArgs {
    std::string queue;
    bool json = false;
};

void print_stats(const std::string& name, const QueueStats& s) {
    const Totals& t = s.totals;
    std::printf("%s\n", name.c_str());
    std::printf("  scheduled  %zu", s.scheduled);
    if (s.next_due) {
        std::printf("  (next due %s, %s)", relative_time(*s.next_due, s.now).c_str(),
                    format_time(*s.next_due).c_str());
    }
    std::printf("\n  ready      %zu", s.ready);
    if (s.ready > 0) {
        std::printf("  (oldest overdue by %s)", rough_duration(s.oldest_ready_age).c_str());
    }
    std::printf("\n  in_flight  %zu\n  dead       %zu\n  total      %zu\n", s.in_flight, s.dead,
                s.scheduled + s.ready + s.in_flight + s.dead);
    std::printf(
        "  totals: sent %llu, delivered %llu, acked %llu, retried %llu, dead-lettered %llu "
        "(expired %llu), cancelled %llu, released %llu, requeued %llu, purged %llu, "
        "trimmed %llu, orphans removed %llu\n",
        static_cast<unsigned long long>(t.sent), static_cast<unsigned long long>(t.delivered),
        static_cast<unsigned long long>(t.acked), static_cast<unsigned long long>(t.retried),
        static_cast<unsigned long long>(t.dead_lettered),
        static_cast<unsigned long long>(t.expired), static_cast<unsigned long long>(t.cancelled),
        static_cast<unsigned long long>(t.released), static_cast<unsigned long long>(t.requeued),
        static_cast<unsigned long long>(t.purged), static_cast<unsigned long long>(t.dead_trimmed),
        static_cast<unsigned long long>(t.orphans_removed));
}

int stats(const StatsArgs& a, const Invocation& invocation) {
    Session session(invocation);
    std::vector<std::string> names;
    if (!a.queue.empty()) {
        session.admin(a.queue);  // checks the name before connecting
        names.push_back(a.queue);
    }
    session.connect();
    if (a.queue.empty()) names = session.client().queues();
    Json all = Json::array();
    std::size_t shown = 0;
    std::size_t hidden = 0;
    for (const auto& name : names) {
        std::optional<QueueStats> readable;
        try {
            readable = session.admin(name).stats();
        } catch (const PermissionError&) {
            // SCAN shows an ACL user every queue's name, not only those it may read.
            if (!a.queue.empty()) throw;
            ++hidden;
            continue;
        }
        if (a.json) {
            all.push_back(stats_line_json(name, *readable));
        } else {
            if (shown > 0) std::printf("\n");
            print_stats(name, *readable);
        }
        ++shown;
    }
    if (hidden > 0) {
        std::fprintf(stderr, "delayq: %zu queue(s) not shown: this Redis user may not read them\n",
                     hidden);
    }
    if (a.json) {
        std::printf("%s\n", to_line(a.queue.empty() ? all : all.at(0)).c_str());
    } else if (shown == 0) {
        std::printf("no queues\n");
    }
    return kExitOk;
}

}  // namespace

void add_stats(CommandSet& set) {
    auto a = std::make_shared<StatsArgs>();
    CLI::App& cmd = set.add(
        {.path = "stats",
         .summary = "Counts per state, lifetime totals, next due time and oldest overdue message",
         .details = R"(Examples:
  delayq stats orders
  delayq stats --json | jq '.[] | {queue, ready, oldest_ready_age_ms}')"},
        [a](const Invocation& i) { return stats(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name (default: every queue)");
    cmd.add_flag("--json", a->json, "One JSON object (an array without QUEUE)");
}

}  // namespace delayq::cli
