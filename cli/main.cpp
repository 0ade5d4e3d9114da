// delayq: a command-line tool for delayq queues.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <string>
#include <vector>

#include "command_set.hpp"
#include "errors.hpp"

using namespace delayq::cli;

namespace {

constexpr const char* kExamples =
    R"(Without --redis or DELAYQ_REDIS_URL, delayq starts and uses its own local
redis-server (see delayq local --help), so this works on a fresh machine:

  delayq send orders 'close order 42' --delay 10s --id order-42
  delayq consume orders --max 1
  delayq demo

Reading commands print tables for people and take --json for scripts (docs/cli.md lists the
fields). Colour only on a terminal, and never with NO_COLOR set.
Shell completion: source <(delayq completion bash), or zsh.)";

// The name of the command: the first word that is neither an option of the root nor its value.
std::size_t command_position(const CLI::App& root, const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!a.starts_with("-")) return i;
        const CLI::Option* opt = root.get_option_no_throw(a);
        if (opt != nullptr && opt->get_expected_max() > 0) ++i;  // --redis URL
    }
    return args.size();
}

// `consume QUEUE -- CMD ARGS...`: what follows `--` is the command's, not ours.
TrailingCommand split_trailing(const CLI::App& root, std::vector<std::string>& args) {
    TrailingCommand trailing;
    const std::size_t command = command_position(root, args);
    if (command == args.size() || args[command] != "consume") return trailing;
    for (std::size_t i = command + 1; i < args.size(); ++i) {
        if (args[i] != "--") continue;
        trailing.given = true;
        trailing.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        args.resize(i);
        break;
    }
    return trailing;
}

int run_cli(int argc, char** argv) {
    CLI::App app{"delayq: delayed messages on Redis", "delayq"};
    app.require_subcommand(1);
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("delayq ") + delayq::version());
    Invocation invocation;
    CommandSet commands(app, invocation);
    add_all_commands(commands);

    std::vector<std::string> args(argv + 1, argv + argc);
    invocation.trailing = split_trailing(app, args);
    std::vector<char*> parse_argv{argv[0]};
    for (auto& a : args) parse_argv.push_back(a.data());
    try {
        app.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::string what = e.what();
        const std::size_t command = command_position(app, args);
        if (command < args.size()) {
            const auto subs = app.get_subcommands(
                [&](CLI::App* sub) { return sub->get_name() == args[command]; });
            if (subs.empty()) what = "unknown command \"" + args[command] + "\"";
        }
        std::fprintf(stderr, "delayq: error: %s\nRun with --help for more information.\n",
                     what.c_str());
        return kExitUsage;
    }
    if (auto status = commands.run_parsed()) return *status;
    std::fprintf(stderr,
                 "delayq: error: no command given\nRun with --help for more information.\n");
    return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    // A closed pipe on stdout must be an error we handle, not a silent death mid-message.
    ::signal(SIGPIPE, SIG_IGN);
    try {
        return run_cli(argc, argv);
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
