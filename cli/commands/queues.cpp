// delayq queues: every queue with its counts.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "table.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

int queues(bool json, const Invocation& invocation) {
    Session session(invocation);
    session.connect();
    Table table({"QUEUE", "SCHEDULED", "READY", "IN_FLIGHT", "DEAD", "NEXT_DUE"});
    Json all = Json::array();
    std::size_t hidden = 0;
    for (const auto& name : session.client().queues()) {
        // SCAN shows an ACL user every queue's name, not only those it may read.
        std::optional<QueueStats> readable;
        try {
            readable = session.admin(name).stats();
        } catch (const PermissionError&) {
            ++hidden;
            continue;
        }
        const QueueStats& s = *readable;
        if (json) {
            all.push_back(stats_line_json(name, s));
            continue;
        }
        table.add({name, std::to_string(s.scheduled), std::to_string(s.ready),
                   std::to_string(s.in_flight), std::to_string(s.dead),
                   s.next_due ? relative_time(*s.next_due, s.now) : "-"});
    }
    if (hidden > 0) {
        std::fprintf(stderr, "delayq: %zu queue(s) not shown: this Redis user may not read them\n",
                     hidden);
    }
    if (json) {
        std::printf("%s\n", to_line(all).c_str());
    } else if (table.empty()) {
        std::printf("no queues\n");
    } else {
        std::printf("%s", table.render(colour_stdout()).c_str());
    }
    return kExitOk;
}

}  // namespace

void add_queues(CommandSet& set) {
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd = set.add(
        {.path = "queues", .summary = "List the queues with their counts", .details = R"(Examples:
  delayq queues
  delayq queues --json | jq '.[].queue')"},
        [json](const Invocation& i) { return queues(*json, i); });
    cmd.add_flag("--json", *json, "A JSON array of per-queue stats");
}

}  // namespace delayq::cli
