// delayq schedule list: the schedules of one queue, or of every queue that has some.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <delayq/limits.hpp>
#include <memory>
#include <optional>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/schedule.hpp"
#include "json_output.hpp"
#include "schedule_text.hpp"
#include "session.hpp"
#include "table.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct ListArgs {
    std::string queue;
    bool json = false;
};

std::vector<ScheduleInfo> all_schedules(Schedules& schedules) {
    std::vector<ScheduleInfo> out;
    PageRequest page{.limit = kMaxBatch};
    do {
        SchedulePage got = schedules.list(page);
        std::move(got.schedules.begin(), got.schedules.end(), std::back_inserter(out));
        page.cursor = std::move(got.next_cursor);
    } while (!page.cursor.empty());
    // The hash scan's order means nothing to a reader.
    std::sort(out.begin(), out.end(),
              [](const ScheduleInfo& x, const ScheduleInfo& y) { return x.name < y.name; });
    return out;
}

Colour state_colour(const ScheduleInfo& info) {
    if (info.paused) return Colour::kYellow;
    return info.next ? Colour::kGreen : Colour::kNone;
}

std::string last_text(const ScheduleInfo& info, TimePoint now) {
    if (!info.last_fired) return "-";
    return relative_time(*info.last_fired, now) + ", " + std::string(to_string(info.last_outcome));
}

int list(const ListArgs& a, const Invocation& invocation) {
    Session session(invocation);
    std::vector<std::string> queues;
    if (!a.queue.empty()) {
        session.schedules(a.queue);  // checks the name before anything is contacted
        queues.push_back(a.queue);
    }
    session.connect();
    if (a.queue.empty()) queues = session.client().schedule_queues();
    const TimePoint now = session.client().server_time();
    Table table({"QUEUE", "NAME", "SCHEDULE", "STATE", "NEXT", "LAST", "RUNS"});
    Json all = Json::array();
    std::size_t hidden = 0;
    for (const std::string& queue : queues) {
        Schedules schedules = session.schedules(queue);
        std::vector<ScheduleInfo> found;
        try {
            found = all_schedules(schedules);
        } catch (const PermissionError&) {
            // The registry names every queue with schedules, not only those this user may read.
            if (!a.queue.empty()) throw;
            ++hidden;
            continue;
        }
        for (const ScheduleInfo& info : found) {
            if (a.json) {
                all.push_back(json::schedule_json(queue, info));
                continue;
            }
            table.add({queue, info.name, spec_phrase(info.spec), state_word(info),
                       info.next ? relative_time(*info.next, now) : "-", last_text(info, now),
                       std::to_string(info.runs)},
                      {Colour::kNone, Colour::kNone, Colour::kNone, state_colour(info)});
        }
    }
    if (hidden > 0) {
        std::fprintf(stderr,
                     "delayq: the schedules of %zu queue(s) not shown: this Redis user may not "
                     "read them\n",
                     hidden);
    }
    if (a.json) {
        std::printf("%s\n", to_line(Json{{"schedules", std::move(all)}}).c_str());
    } else if (table.empty()) {
        std::printf("no schedules\n");
    } else {
        std::printf("%s", table.render(colour_stdout()).c_str());
    }
    return kExitOk;
}

}  // namespace

void add_schedule_list(CommandSet& set) {
    auto a = std::make_shared<ListArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule list",
         .summary = "List the schedules of a queue, or of every queue that has some",
         .details = R"(A table by queue and name: the schedule, its state (active, paused, or ended
past its end or max runs), when it next sends, when it last did and where that message is now,
and how many occurrences it has sent. With --json, one object {"schedules": [...]} of Schedule
objects (docs/cli.md), each with its queue.

Examples:
  delayq schedule list
  delayq schedule list reports --json | jq -r '.schedules[].name')"},
        [a](const Invocation& i) { return list(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Only this queue's (default: every queue with schedules)");
    cmd.add_flag("--json", a->json, "One JSON object with an array of Schedule objects");
}

}  // namespace delayq::cli
