// Exit statuses, help, version, and bad input: exit 2, one clear message, Redis unchanged.
#include <gtest/gtest.h>

#include <delayq/version.hpp>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using UsageTest = CliTest;

TEST_F(UsageTest, VersionCommandAndFlagPrintTheLibraryVersion) {
    for (const auto& args : {std::vector<std::string>{"version"}, {"--version"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_EQ(r.out, std::string("delayq ") + kVersion + "\n");
    }
}

TEST_F(UsageTest, EveryCommandHasHelpWithExamples) {
    const std::vector<std::vector<std::string>> commands = {
        {"send"},
        {"consume"},
        {"cancel"},
        {"reschedule"},
        {"stats"},
        {"peek"},
        {"dead"},
        {"dead", "list"},
        {"dead", "requeue"},
        {"dead", "purge"},
        {"queues"},
        {"local"},
        {"local", "status"},
        {"local", "stop"},
        {"demo"},
        {"version"},
        {"queue"},
        {"queue", "info"},
        {"queue", "set"},
        {"queue", "pause"},
        {"queue", "resume"},
        {"queue", "delete"},
        {"functions"},
        {"functions", "load"},
        {"functions", "status"},
        {"functions", "prune"},
        {"completion"},
        {"schedule"},
        {"schedule", "add"},
        {"schedule", "set"},
        {"schedule", "get"},
        {"schedule", "list"},
        {"schedule", "next"},
        {"schedule", "pause"},
        {"schedule", "resume"},
        {"schedule", "trigger"},
        {"schedule", "remove"},
        {"schedule", "run"},
    };
    for (auto args : commands) {
        args.push_back("--help");
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 0) << args[0];
        EXPECT_NE(r.out.find("Examples:"), std::string::npos) << args[0] << ": " << r.out;
    }
    const CliResult top = cli({"--help"});
    EXPECT_EQ(top.exit_code, 0);
    EXPECT_NE(top.out.find("consume"), std::string::npos);
}

TEST_F(UsageTest, CommandsThatTalkToRedisTakeTheRedisOption) {
    for (const std::string cmd :
         {"send", "consume", "cancel", "reschedule", "stats", "peek", "queues", "demo"}) {
        const CliResult r = cli({cmd, "--help"});
        EXPECT_NE(r.out.find("--redis"), std::string::npos) << cmd;
    }
    for (const std::string sub : {"list", "requeue", "purge"}) {
        const CliResult r = cli({"dead", sub, "--help"});
        EXPECT_NE(r.out.find("--redis"), std::string::npos) << sub;
    }
    for (const std::string sub : {"load", "status", "prune"}) {
        const CliResult r = cli({"functions", sub, "--help"});
        EXPECT_NE(r.out.find("--redis"), std::string::npos) << sub;
    }
}

TEST_F(UsageTest, NoCommandOrAnUnknownOneIsBadUsage) {
    for (const auto& args : {std::vector<std::string>{}, {"frobnicate"}, {"dead"}, {"local"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << (args.empty() ? "" : args[0]);
        EXPECT_NE(r.err.find("delayq: error:"), std::string::npos) << r.err;
    }
    const CliResult r = cli({"frobnicate"});
    EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

struct BadInput {
    std::vector<std::string> args;
    std::string expected;  // in the message on stderr
    std::string input{};
};

TEST_F(UsageTest, BadInputExitsTwoWithAMessageAndWritesNothing) {
    // Redis holds something, so that an unchanged fingerprint means more than "still empty".
    send("q", "already here", {"--id", "keep", "--delay", "1h"});
    ASSERT_EQ(cli({"send", "q", "dead soon", "--id", "dl", "--max-attempts", "1"}).exit_code, 0);
    const std::string before = fingerprint();
    const std::vector<BadInput> cases = {
        {{"send", "q", "x", "--delay", "-5s"}, "must not be negative"},
        {{"send", "q", "x", "--delay=-1ms"}, "must not be negative"},
        {{"send", "q", "x", "--delay", "5x"}, "invalid duration"},
        {{"send", "q", "x", "--delay", "1d1d"}, "unit \"d\" appears twice"},
        {{"send", "q", "x", "--delay", "30m1h"}, "largest first"},
        {{"send", "q", "x", "--delay", "1.5s"}, "invalid duration"},
        {{"send", "q", "x", "--delay", ""}, "invalid duration"},
        {{"send", "q", "x", "--delay", "99999999999d"}, "too long"},
        {{"send", "q", "x", "--at", "tomorrow"}, "invalid time"},
        {{"send", "q", "x", "--at", "2030-13-01T00:00:00Z"}, "invalid time"},
        {{"send", "q", "x", "--at", "2030-01-02T03:04:05"}, "invalid time"},
        {{"send", "q", "x", "--at", "-1000"}, "invalid time"},
        {{"send", "q", "x", "--delay", "1s", "--at", "1893553445000"}, "excludes"},
        {{"send", "bad queue", "x"}, "queue name"},
        {{"send", "q{1}", "x"}, "queue name"},
        {{"send", "q", "x", "--id", "a{b}"}, "message id"},
        {{"send", "q", "x", "--id", std::string(201, 'i')}, "message id"},
        {{"send", "q", "x", "--max-attempts", "0"}, "max-attempts"},
        {{"send", "q", "x", "--max-attempts", "many"}, "max-attempts"},
        {{"send", "q", "x", "--expire-after", "1s", "--delay", "5s"}, "expire"},
        {{"send", "q"}, "over the limit", std::string(std::size_t{1024} * 1024 + 1, 'p')},
        {{"send", "q", "x", "--bogus"}, "bogus"},
        {{"send"}, "QUEUE"},
        {{"send", "q", "x", "--redis", "http://127.0.0.1:1"}, "Redis URL"},
        {{"send", "q", "--file", "-"}, "line 2", "{\"payload\": \"ok\"}\n{\"payload\": 5}\n"},
        {{"send", "q", "--file", "-"}, "line 1", "not json\n"},
        {{"send", "q", "--file", "-"}, "line 1", "{\"payload\": \"x\", \"delay\": \"-1s\"}\n"},
        {{"send", "q", "--file", "-"}, "line 1", "{\"payload_base64\": \"!!!\"}\n"},
        {{"send", "q", "--file", "-"}, "line 1", "{\"payload\": \"x\", \"colour\": 1}\n"},
        {{"send", "q", "--file", "-"}, "line 3", "{\"payload\":\"a\"}\n\n{\"id\":\"x\"}\n"},
        {{"send", "q", "--file", "/nonexistent/file.jsonl"}, "cannot open"},
        {{"send", "q", "x", "--file", "-"}, "not both"},
        {{"send", "q", "x", "--wait-replicas", "1"}, "--wait-timeout"},
        {{"send", "q", "x", "--wait-replicas", "1", "--wait-timeout", "0"}, "WAIT 0"},
        {{"send", "q", "x", "--wait-replicas", "1", "--wait-timeout", "0s"}, "WAIT 0"},
        {{"send", "q", "x", "--wait-replicas", "-1", "--wait-timeout", "1s"}, "wait-replicas"},
        {{"send", "q", "x", "--wait-replicas", "1001", "--wait-timeout", "1s"}, "wait-replicas"},
        {{"send", "q", "x", "--wait-replicas", "1", "--wait-timeout", "61s"}, "at most 60s"},
        {{"send", "q", "x", "--wait-replicas", "1", "--wait-timeout", "soon"}, "invalid duration"},
        {{"send", "q", "x", "--wait-timeout", "1s"}, "needs --wait-replicas"},
        {{"send", "q", "--file", "-", "--wait-replicas", "2"},
         "--wait-timeout",
         "{\"payload\": \"ok\"}\n"},
        {{"consume", "q", "--timeout", "soon"}, "invalid duration"},
        {{"consume", "q", "--visibility", "0"}, "visibility"},
        {{"consume", "q", "--concurrency", "0"}, "concurrency"},
        {{"consume", "q", "--max", "0"}, "max"},
        {{"consume", "q", "--", "/nonexistent/handler"}, "command not found"},
        {{"consume", "q", "--"}, "command is expected"},
        {{"consume", "q", "--raw", "--", "true"}, "--raw"},
        {{"consume", "q", "--json", "--", "true"}, "--json"},
        {{"consume", "q", "--json", "--raw"}, "either --json or --raw"},
        {{"consume", "bad queue"}, "queue name"},
        {{"cancel", "q", "bad{id}"}, "message id"},
        {{"cancel", "q"}, "ID"},
        {{"reschedule", "q", "keep"}, "--delay or --at"},
        {{"reschedule", "q", "keep", "--delay", "-1s"}, "must not be negative"},
        {{"reschedule", "q", "keep", "--at", "noon"}, "invalid time"},
        {{"peek", "q", "--state", "sleeping"}, "unknown state"},
        {{"peek", "q", "--limit", "0"}, "limit"},
        {{"stats", "bad queue"}, "queue name"},
        {{"dead", "requeue", "q"}, "--all"},
        {{"dead", "purge", "q", "dl", "--all"}, "--all"},
        {{"dead", "purge", "q", "bad{id}"}, "message id"},
        {{"dead", "list", "q", "--limit", "-3"}, "limit"},
        {{"demo", "--orders", "0"}, "orders"},
    };
    for (const auto& c : cases) {
        std::string shown;
        for (const auto& a : c.args) shown += a.substr(0, 40) + " ";
        CliOptions o;
        o.input = c.input;
        const CliResult r = cli(c.args, o);
        EXPECT_EQ(r.exit_code, 2) << shown << "\nstdout: " << r.out << "\nstderr: " << r.err;
        EXPECT_NE(r.err.find(c.expected), std::string::npos) << shown << "\nstderr: " << r.err;
        EXPECT_TRUE(r.out.empty()) << shown << "\nstdout: " << r.out;
        EXPECT_EQ(fingerprint(), before) << shown;
    }
}

TEST_F(UsageTest, UnreachableRedisExitsOneWithOneLine) {
    const std::string url = "redis://127.0.0.1:" + std::to_string(free_port());
    const std::vector<std::vector<std::string>> commands = {
        {"send", "q", "x"},
        {"consume", "q", "--max", "1"},
        {"cancel", "q", "id"},
        {"stats"},
        {"stats", "q"},
        {"peek", "q"},
        {"queues"},
        {"dead", "list", "q"},
        {"dead", "purge", "q", "--all"},
        {"reschedule", "q", "id", "--delay", "1s"},
        {"schedule", "list"}};
    for (auto args : commands) {
        args.push_back("--redis");
        args.push_back(url);
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
        EXPECT_EQ(count_lines(r.err), 1U) << args[0] << ": " << r.err;
        EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
    }
}

TEST_F(UsageTest, RedisOptionWinsOverTheEnvironment) {
    RedisServer other;
    const CliResult r = cli({"send", "q", "x", "--redis", other.url()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(other.hlen(queue_key("q", "msg")), 1);
    EXPECT_EQ(redis_.dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
