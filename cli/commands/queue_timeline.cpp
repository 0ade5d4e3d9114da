// delayq queue timeline: what falls due when, counted by due-time bucket.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/queue.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

constexpr std::size_t kBarWidth = 40;

struct TimelineArgs {
    std::string queue;
    std::string bucket = "1m";
    std::size_t buckets = 60;
    bool json = false;
};

int timeline(const TimelineArgs& a, const Invocation& invocation) {
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    const Duration bucket = duration_arg(a.bucket);
    session.connect();
    const Timeline t = admin.timeline(bucket, a.buckets);
    if (a.json) {
        std::printf("%s\n", to_line(json::timeline_json(a.queue, t)).c_str());
        return kExitOk;
    }
    // One line a bucket, the largest one a full bar, so that the shape shows at a glance.
    const std::size_t most = std::max<std::size_t>(
        1, t.counts.empty() ? 0 : *std::max_element(t.counts.begin(), t.counts.end()));
    std::printf("%-12s %10zu\n", "ready", t.ready);
    for (std::size_t i = 0; i < t.counts.size(); ++i) {
        const TimePoint to = t.now + t.bucket * static_cast<Duration::rep>(i + 1);
        const std::string bar(t.counts[i] * kBarWidth / most, '#');
        std::printf("%-12s %10zu %s\n", ("<= " + rough_duration(to - t.now)).c_str(), t.counts[i],
                    bar.c_str());
    }
    std::printf("%-12s %10zu\n", "later", t.later);
    return kExitOk;
}

}  // namespace

void add_queue_timeline(CommandSet& set) {
    auto a = std::make_shared<TimelineArgs>();
    CLI::App& cmd = set.add(
        {.path = "queue timeline",
         .summary = "Show how many messages fall due in each coming minute, hour or day",
         .details = R"(Counts the queue's pending messages by due time, from now on the Redis clock:
BUCKETS buckets of BUCKET each (a line each, with a bar), after those already due
(ready) and before those due later. One script call, cheap on a queue of millions.

Examples:
  delayq queue timeline orders
  delayq queue timeline orders --bucket 1h --buckets 48
  delayq queue timeline orders --bucket 1d --buckets 30 --json)"},
        [a](const Invocation& i) { return timeline(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("--bucket", a->bucket, "A bucket's width (default 1m)")->type_name("DUR");
    cmd.add_option("--buckets", a->buckets, "How many buckets (default 60)")
        ->check(CLI::Range(std::size_t{1}, kMaxTimelineBuckets))
        ->type_name("N");
    cmd.add_flag("--json", a->json, "One JSON object: the counts (docs/json.md, Timeline)");
}

}  // namespace delayq::cli
