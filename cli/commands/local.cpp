// delayq local status|stop: the redis-server delayq manages when no Redis URL is configured.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands/commands.hpp"
#include "errors.hpp"
#include "local_redis.hpp"

namespace delayq::cli {
namespace {

int status() {
    const LocalRedis local(LocalRedis::default_dir());
    const auto s = local.status();
    if (s.running) {
        std::printf("running (pid %d)\nurl:  %s\ndata: %s\n", static_cast<int>(s.pid),
                    local.url().c_str(), local.dir().c_str());
        return 0;
    }
    if (s.answering) {
        std::printf("starting: loading its data (pid %d)\nurl:  %s\ndata: %s\n",
                    static_cast<int>(s.pid), local.url().c_str(), local.dir().c_str());
        return kExitFailure;
    }
    std::printf("not running\ndata: %s\n", local.dir().c_str());
    return kExitFailure;
}

int stop() {
    const LocalRedis local(LocalRedis::default_dir());
    const pid_t pid = local.stop();
    if (pid < 0) {
        std::printf("not running\n");
    } else {
        std::printf("stopped (pid %d)\n", static_cast<int>(pid));
    }
    return 0;
}

}  // namespace

void add_local(CLI::App& app, Commands& out) {
    CLI::App* local = app.add_subcommand("local", "The local redis-server delayq manages itself");
    local->require_subcommand(1);
    local->footer(R"(When neither --redis nor DELAYQ_REDIS_URL names a server, delayq runs its own
redis-server (found on PATH): started by the first command that needs it, reused by the others,
with its data (append-only file on, no eviction) and its unix socket in $DELAYQ_HOME, else
$XDG_DATA_HOME/delayq, else ~/.local/share/delayq. It listens on no TCP port.

Examples:
  delayq local status
  delayq local stop)");
    CLI::App* status_cmd = local->add_subcommand(
        "status", "Show whether it runs, its pid and its URL (exit status 1 when it does not)");
    status_cmd->footer(
        "Examples:\n  delayq local status\n  DELAYQ_HOME=/tmp/dq delayq local status");
    out.push_back({status_cmd, [] { return status(); }});
    CLI::App* stop_cmd = local->add_subcommand(
        "stop", "Stop it gracefully (its data stays; the next command starts it again)");
    stop_cmd->footer("Examples:\n  delayq local stop");
    out.push_back({stop_cmd, [] { return stop(); }});
}

}  // namespace delayq::cli
