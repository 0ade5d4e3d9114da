// delayq push get: a queue's push target, without its credentials.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/push.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct GetArgs {
    std::string queue;
    bool json = false;
};

void print_target(const std::string& queue, const PushTargetInfo& t, TimePoint now) {
    std::printf("queue            %s\n", queue.c_str());
    std::printf("url              %s %s\n", std::string(to_string(t.method)).c_str(),
                t.url.c_str());
    std::printf("content type     %s\n", t.content_type.c_str());
    std::string names;
    for (const std::string& name : t.header_names) names += (names.empty() ? "" : ", ") + name;
    std::printf("headers          %s\n", names.empty() ? "(none)" : names.c_str());
    std::printf("secrets          %zu%s\n", t.secrets, t.secrets == 0 ? " (not signed)" : "");
    std::printf("request timeout  %s\n", rough_duration(t.request_timeout).c_str());
    std::printf("max in flight    %zu\n", t.max_in_flight);
    if (t.rate > 0) {
        std::printf("rate             %g/s\n", t.rate);
    } else {
        std::printf("rate             no limit\n");
    }
    std::printf("updated          %s\n", relative_time(t.updated, now).c_str());
    if (!t.last) {
        std::printf("last answer      none yet\n");
        return;
    }
    const std::string when = relative_time(t.last->at, now);
    if (t.last->status == 0) {
        std::printf("last answer      none (%s), %s\n", t.last->error.c_str(), when.c_str());
    } else if (t.last->error.empty()) {
        std::printf("last answer      %d, %s\n", t.last->status, when.c_str());
    } else {
        std::printf("last answer      %d (%s), %s\n", t.last->status, t.last->error.c_str(),
                    when.c_str());
    }
}

int get(const GetArgs& a, const Invocation& invocation) {
    Session session(invocation);
    PushTargets push = session.push_targets(a.queue);
    session.connect();
    const std::optional<PushTargetInfo> info = push.get();
    if (!info) throw RuntimeFailure("queue " + a.queue + " has no push target");
    if (a.json) {
        std::printf("%s\n", to_line(json::push_target_json(a.queue, *info)).c_str());
    } else {
        print_target(a.queue, *info, session.client().server_time());
    }
    return kExitOk;
}

}  // namespace

void add_push_get(CommandSet& set) {
    auto a = std::make_shared<GetArgs>();
    CLI::App& cmd = set.add(
        {.path = "push get",
         .summary = "Show a queue's push target: URL, limits and the last answer",
         .details =
             R"(Shows the header names and how many secrets are set, never their values: those
are write-only. The last answer is the one a pusher last recorded (status 0: no answer, a
timeout or a refused connection). With --json, a PushTarget object (docs/json.md). Exit status
1 when the queue has no push target.

Examples:
  delayq push get orders
  delayq push get orders --json | jq .last)"},
        [a](const Invocation& i) { return get(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_flag("--json", a->json, "A PushTarget object on one line");
}

}  // namespace delayq::cli
