// Global options work before the command's name and after its arguments alike.
#include <gtest/gtest.h>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using GlobalOptionsTest = CliTest;

enum class Position { kBefore, kAfter };

std::vector<std::string> with_redis(std::vector<std::string> args, const std::string& url,
                                    Position position) {
    const auto at = position == Position::kBefore ? args.begin() : args.end();
    args.insert(at, {"--redis", url});
    return args;
}

TEST_F(GlobalOptionsTest, RedisWorksBeforeTheCommandAndAfterItsArguments) {
    // The environment names a server nobody listens on: only --redis can make these succeed.
    const std::string nowhere = "redis://127.0.0.1:" + std::to_string(free_port());
    const CliOptions env{.env = {"DELAYQ_REDIS_URL=" + nowhere}};
    for (const Position position : {Position::kBefore, Position::kAfter}) {
        const std::string tag = position == Position::kBefore ? "before" : "after";
        const std::string id = "m-" + tag;
        const std::vector<std::vector<std::string>> commands = {
            {"send", "q", "later", "--id", id, "--delay", "1h"},
            {"reschedule", "q", id, "--delay", "2h"},
            {"cancel", "q", id},
            {"send", "q", "now-" + tag},
            {"consume", "q", "--max", "1", "--timeout", "60s"},
            {"stats", "q"},
            {"queues"},
            {"peek", "q"},
            {"dead", "list", "q"},
            {"dead", "requeue", "q", "--all"},
            {"dead", "purge", "q", "--all"},
            {"queue", "info", "q"},
            {"queue", "set", "q", "--max-attempts", "5"},
            {"queue", "pause", "q"},
            {"queue", "resume", "q"},
            {"schedule", "list", "q"},
            {"queue", "delete", "q", "--yes"},
        };
        for (const auto& command : commands) {
            const CliResult r = cli(with_redis(command, redis_.url(), position), env);
            EXPECT_EQ(r.exit_code, 0) << tag << " " << command[0] << ": " << r.err;
            if (command[0] == "consume") {
                EXPECT_NE(r.out.find("now-" + tag), std::string::npos) << r.out;
            }
        }
        // The last command deleted the queue on the server --redis named.
        EXPECT_EQ(redis_.dbsize(), 0) << tag;
    }
}

TEST_F(GlobalOptionsTest, RedisBeforeTheCommandPassesTheTrailingCommandToConsume) {
    send("q", "to the handler");
    const CliResult r =
        cli({"--redis", redis_.url(), "consume", "q", "--max", "1", "--", "cat"},
            {.env = {"DELAYQ_REDIS_URL=redis://127.0.0.1:" + std::to_string(free_port())}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "to the handler");
}

TEST_F(GlobalOptionsTest, EveryCommandsHelpListsTheGlobalOptionsAndTheExitStatuses) {
    const CliResult top = cli({"--help"});
    ASSERT_EQ(top.exit_code, 0);
    std::vector<std::vector<std::string>> paths;
    // The top-level help lists the commands; groups list theirs.
    for (const std::string name : {"send", "consume", "cancel", "reschedule", "stats", "queues",
                                   "peek", "serve", "demo", "completion", "version"}) {
        paths.push_back({name});
    }
    for (const std::string sub : {"list", "requeue", "purge"}) paths.push_back({"dead", sub});
    for (const std::string sub : {"status", "stop"}) paths.push_back({"local", sub});
    for (const std::string sub : {"load", "status", "prune"}) paths.push_back({"functions", sub});
    for (const std::string sub : {"info", "set", "pause", "resume", "delete"}) {
        paths.push_back({"queue", sub});
    }
    for (const std::string sub :
         {"add", "set", "get", "list", "next", "pause", "resume", "trigger", "remove", "run"}) {
        paths.push_back({"schedule", sub});
    }
    for (auto path : paths) {
        EXPECT_NE(top.out.find("  " + path[0] + " "), std::string::npos) << path[0];
        path.push_back("--help");
        const CliResult r = cli(path);
        EXPECT_EQ(r.exit_code, 0) << path[0];
        EXPECT_NE(r.out.find("Global options (before or after the command):\n  --redis URL"),
                  std::string::npos)
            << path[0] << ": " << r.out;
        EXPECT_NE(r.out.find("Exit status: 0 success; 1 a runtime failure"), std::string::npos)
            << path[0] << ": " << r.out;
        EXPECT_NE(r.out.find("2 bad usage or input"), std::string::npos) << path[0];
    }
}

}  // namespace
}  // namespace delayq::test
