// delayq completion bash|zsh: the scripts load in their shells and propose the commands and
// options the binary defines.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using CompletionTest = CliTest;

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

bool has(const std::vector<std::string>& words, const std::string& w) {
    return std::find(words.begin(), words.end(), w) != words.end();
}

class ShellCompletion : public CompletionTest {
  protected:
    // Runs `driver` in `shell` from the scratch directory, after writing the completion script
    // where it can source it; each line of the driver's output is one answer.
    std::vector<std::string> run(const std::string& shell, const std::string& driver) {
        const CliResult script = cli({"completion", shell});
        EXPECT_EQ(script.exit_code, 0) << script.err;
        std::ofstream(scratch_ / ("completion." + shell)) << script.out;
        std::ofstream(scratch_ / "driver") << driver;
        std::ofstream(scratch_ / "orders.jsonl") << "{}\n";
        const std::string command =
            "cd '" + scratch_.string() + "' && " + shell + " -f ./driver 2>&1";
        FILE* pipe = ::popen(command.c_str(), "r");
        EXPECT_NE(pipe, nullptr);
        std::string out;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
        EXPECT_EQ(::pclose(pipe), 0) << out;
        std::vector<std::string> lines;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }
};

TEST_F(ShellCompletion, BashProposesCommandsOptionsAndFiles) {
    const auto lines = run("bash", R"(source ./completion.bash
complete -p delayq
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _delayq; echo "${COMPREPLY[*]}"; }
ask delayq ''
ask delayq dead ''
ask delayq queue ''
ask delayq send q --
ask delayq --redis redis://h:1 d
ask delayq dead requeue q --a
ask delayq send q --redis ''
ask delayq send q --file or
ask delayq consume q -- ''
ask delayq queue set q --dead
ask delayq peek q --state ''
ask delayq acl --role w
ask delayq completion ''
ask delayq schedule ''
ask delayq schedule add q n --catch-up ''
)");
    ASSERT_EQ(lines.size(), 16U);
    EXPECT_EQ(lines[0], "complete -F _delayq delayq");
    const auto top = split(lines[1]);
    for (const std::string c :
         {"send", "consume", "cancel", "reschedule", "stats", "queues", "peek", "dead", "queue",
          "schedule", "local", "functions", "demo", "completion", "version"}) {
        EXPECT_TRUE(has(top, c)) << c << " in: " << lines[1];
    }
    EXPECT_EQ(lines[2], "list requeue purge");
    EXPECT_EQ(lines[3], "info timeline set pause resume delete");
    const auto send = split(lines[4]);
    for (const std::string o : {"--help", "--redis", "--delay", "--at", "--id", "--file"}) {
        EXPECT_TRUE(has(send, o)) << o << " in: " << lines[4];
    }
    EXPECT_EQ(lines[5], "dead demo");  // the global option's value was skipped
    EXPECT_EQ(lines[6], "--all");
    EXPECT_EQ(lines[7], "");  // a URL is the user's to type
    EXPECT_EQ(lines[8], "orders.jsonl");
    EXPECT_EQ(lines[9], "");  // the user's own command follows --
    EXPECT_EQ(lines[10], "--dead-max-count --dead-max-age");
    // Options and arguments that take one of a fixed set propose it.
    EXPECT_EQ(lines[11], "scheduled ready in_flight dead");
    EXPECT_EQ(lines[12], "writer");
    EXPECT_EQ(lines[13], "bash zsh");
    EXPECT_EQ(lines[14], "add set get list next pause resume trigger remove run");
    EXPECT_EQ(lines[15], "none one all");
}

TEST_F(ShellCompletion, ZshScriptRegistersAndProposesCommandsWithDescriptions) {
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/zsh") || std::filesystem::exists("/bin/zsh"))
        << "zsh is missing: scripts/deps.sh test installs it";
    // compsys's helpers stand in for the real ones, printing what they are given.
    const auto lines = run("zsh", R"(_describe() { local arr=${@[-1]}; print -r -- ${(P)arr}; }
_files() { print FILES; }
compdef() { print compdef $@; }
source ./completion.zsh
ask() { words=("$@"); CURRENT=$#; _delayq; }
ask delayq dead ''
ask delayq --redis u queue set q --backoff-j
ask delayq send q --file ''
ask delayq peek q --state ''
ask delayq completion ''
)");
    ASSERT_EQ(lines.size(), 6U);
    EXPECT_EQ(lines[0], "compdef _delayq delayq");
    EXPECT_EQ(lines[1],
              "list:List dead letters with their reason and last error "
              "requeue:Send dead letters again, due now, with fresh attempts "
              "purge:Delete dead letters for good");
    EXPECT_TRUE(lines[2].starts_with("--help:Print this help message")) << lines[2];
    EXPECT_NE(lines[2].find("--backoff-jitter:"), std::string::npos) << lines[2];
    EXPECT_EQ(lines[3], "FILES");
    EXPECT_EQ(lines[4], "scheduled ready in_flight dead");
    EXPECT_EQ(lines[5], "bash zsh");
}

TEST_F(CompletionTest, AnUnknownShellIsBadUsage) {
    const CliResult r = cli({"completion", "fish"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("fish"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace delayq::test
