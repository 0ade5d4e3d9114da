// delayq: a command-line tool for delayq queues.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "errors.hpp"

using namespace delayq::cli;

namespace {

constexpr const char* kExamples =
    R"(Without --redis or DELAYQ_REDIS_URL, delayq starts and uses its own local
redis-server (see delayq local --help), so this works on a fresh machine:

  delayq send orders 'close order 42' --delay 10s --id order-42
  delayq consume orders --max 1
  delayq demo

Exit status: 0 success, 1 a runtime failure (such as Redis unreachable), 2 bad usage or input
(then nothing was written to Redis).)";

// `consume QUEUE -- CMD ARGS...`: what follows `--` is the command's, not ours.
TrailingCommand split_trailing(std::vector<std::string>& args) {
    TrailingCommand trailing;
    if (args.empty() || args.front() != "consume") return trailing;
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] != "--") continue;
        trailing.given = true;
        trailing.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        args.resize(i);
        break;
    }
    return trailing;
}

int run(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    const TrailingCommand trailing = split_trailing(args);

    CLI::App app{"delayq: delayed messages on Redis", "delayq"};
    app.require_subcommand(1);
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("delayq ") + delayq::kVersion);
    Commands commands;
    add_send(app, commands);
    add_consume(app, commands, trailing);
    add_cancel(app, commands);
    add_reschedule(app, commands);
    add_stats(app, commands);
    add_peek(app, commands);
    add_dead(app, commands);
    add_queues(app, commands);
    add_local(app, commands);
    add_demo(app, commands);
    add_version(app, commands);

    std::vector<char*> parse_argv{argv[0]};
    for (auto& a : args) parse_argv.push_back(a.data());
    try {
        app.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::string what = e.what();
        if (!args.empty() && !args.front().starts_with("-")) {
            const auto subs =
                app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == args.front(); });
            if (subs.empty()) what = "unknown command \"" + args.front() + "\"";
        }
        std::fprintf(stderr, "delayq: error: %s\nRun with --help for more information.\n",
                     what.c_str());
        return kExitUsage;
    }
    for (const auto& c : commands) {
        if (c.app->parsed()) return c.run();
    }
    std::fprintf(stderr,
                 "delayq: error: no command given\nRun with --help for more information.\n");
    return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    // A closed pipe on stdout must be an error we handle, not a silent death mid-message.
    ::signal(SIGPIPE, SIG_IGN);
    try {
        return run(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "delayq: error: %s\n", e.what());
        return kExitUsage;
    } catch (const delayq::InvalidArgument& e) {
        std::fprintf(stderr, "delayq: error: %s\n", e.what());
        return kExitUsage;
    } catch (const delayq::Error& e) {
        std::fprintf(stderr, "delayq: %s\n", e.what());
        return kExitFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "delayq: %s\n", e.what());
        return kExitFailure;
    }
}
