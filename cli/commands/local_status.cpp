// delayq local status: whether the managed redis-server runs.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "local_redis.hpp"

namespace delayq::cli {
namespace {

int show_local_status(bool json) {
    const LocalRedis local(LocalRedis::default_dir());
    const auto s = local.status();
    const char* state = s.running ? "running" : s.answering ? "starting" : "not running";
    if (json) {
        Json j;
        j["state"] = state;
        j["pid"] = s.answering ? Json(static_cast<int>(s.pid)) : Json(nullptr);
        j["url"] = local.url();
        j["data_dir"] = local.dir().string();
        std::printf("%s\n", to_line(j).c_str());
    } else if (s.running) {
        std::printf("running (pid %d)\nurl:  %s\ndata: %s\n", static_cast<int>(s.pid),
                    local.url().c_str(), local.dir().c_str());
    } else if (s.answering) {
        std::printf("starting: loading its data (pid %d)\nurl:  %s\ndata: %s\n",
                    static_cast<int>(s.pid), local.url().c_str(), local.dir().c_str());
    } else {
        std::printf("not running\ndata: %s\n", local.dir().c_str());
    }
    return s.running ? kExitOk : kExitFailure;
}

}  // namespace

void add_local_status(CommandSet& set) {
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd = set.add(
        {.path = "local status",
         .summary = "Show whether it runs, its pid and its URL (exit status 1 when it does not)",
         .details = R"(Examples:
  delayq local status
  DELAYQ_HOME=/tmp/dq delayq local status --json)"},
        [json](const Invocation&) { return show_local_status(*json); });
    cmd.add_flag("--json", *json, "One JSON object");
}

}  // namespace delayq::cli
