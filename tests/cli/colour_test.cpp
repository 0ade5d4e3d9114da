// Colour only on a terminal, never with NO_COLOR or TERM=dumb; piped output is plain text.
#include <gtest/gtest.h>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using ColourTest = CliTest;

constexpr const char* kEscape = "\x1b[";

TEST_F(ColourTest, PipedOutputHasNoEscapeCodes) {
    send("q", "ready one");
    for (const auto& args : {std::vector<std::string>{"peek", "q"},
                             {"queues"},
                             {"stats", "q"},
                             {"dead", "list", "q"},
                             {"queue", "info", "q"}}) {
        const CliResult r = cli(args, {.env = {"TERM=xterm-256color"}, .unset = {"NO_COLOR"}});
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
        EXPECT_EQ(r.out.find(kEscape), std::string::npos) << args[0] << ": " << r.out;
    }
}

TEST_F(ColourTest, ATerminalGetsColouredTablesUnlessNoColourOrADumbTerminal) {
    send("q", "ready one");
    const CliOptions terminal{.env = {"TERM=xterm"}, .unset = {"NO_COLOR"}, .terminal = true};
    const CliResult peek = cli({"peek", "q"}, terminal);
    EXPECT_EQ(peek.exit_code, 0) << peek.out;
    EXPECT_NE(peek.out.find("\x1b[1mID\x1b[0m"), std::string::npos) << peek.out;
    EXPECT_NE(peek.out.find("\x1b[32mready\x1b[0m"), std::string::npos) << peek.out;
    const CliResult queues = cli({"queues"}, terminal);
    EXPECT_NE(queues.out.find("\x1b[1mQUEUE\x1b[0m"), std::string::npos) << queues.out;
    // NO_COLOR set but empty does not count (no-color.org).
    const CliResult empty =
        cli({"peek", "q"}, {.env = {"TERM=xterm", "NO_COLOR="}, .terminal = true});
    EXPECT_NE(empty.out.find(kEscape), std::string::npos) << empty.out;

    for (const auto& env : {std::vector<std::string>{"TERM=xterm", "NO_COLOR=1"}, {"TERM=dumb"}}) {
        for (const auto& args : {std::vector<std::string>{"peek", "q"}, {"queues"}}) {
            const CliResult r = cli(args, {.env = env, .unset = {"NO_COLOR"}, .terminal = true});
            EXPECT_EQ(r.exit_code, 0) << r.out;
            EXPECT_NE(r.out.find(args[0] == "peek" ? "ID" : "QUEUE"), std::string::npos) << r.out;
            EXPECT_EQ(r.out.find(kEscape), std::string::npos) << env.back() << ": " << r.out;
        }
    }
}

}  // namespace
}  // namespace delayq::test
