// delayq queue info: a queue's settings and counts, and how this client runs the operations.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/queue.hpp"
#include "json_output.hpp"
#include "session.hpp"
#include "settings_text.hpp"

namespace delayq::cli {
namespace {

struct InfoArgs {
    std::string queue;
    bool json = false;
};

int info(const InfoArgs& a, const Invocation& invocation) {
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    const QueueSettings settings = admin.settings();
    const QueueStats stats = admin.stats();
    const EngineStatus engine = session.client().engine();
    const bool functions = engine.mode == ScriptEngine::kFunctions;
    if (a.json) {
        Json j = json::settings_json(settings);
        j["queue"] = a.queue;
        j["stats"] = stats_line_json(a.queue, stats);
        j["engine"] = {{"mode", std::string(to_string(engine.mode))},
                       {"library", engine.library},
                       {"reason", engine.reason}};
        std::printf("%s\n", to_line(j).c_str());
        return kExitOk;
    }
    const std::string engine_text =
        functions ? "functions (" + engine.library + ")" : "scripts (EVALSHA): " + engine.reason;
    std::printf(
        "%s\n%s  messages        %zu scheduled, %zu ready, %zu in flight, %zu dead\n"
        "  engine          %s\n",
        a.queue.c_str(), settings_text(settings).c_str(), stats.scheduled, stats.ready,
        stats.in_flight, stats.dead, engine_text.c_str());
    return kExitOk;
}

}  // namespace

void add_queue_info(CommandSet& set) {
    auto a = std::make_shared<InfoArgs>();
    CLI::App& cmd = set.add({.path = "queue info",
                             .summary = "Show a queue's settings and its counts per state",
                             .details = R"(A queue nothing was written to shows the defaults. The
engine line says whether the operations run as Redis functions or, where
Redis refuses the function library, as scripts (EVALSHA), and why.

Examples:
  delayq queue info orders
  delayq queue info orders --json | jq .backoff)"},
                            [a](const Invocation& i) { return info(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_flag("--json", a->json, "One JSON object: the settings, with the stats in \"stats\"");
}

}  // namespace delayq::cli
