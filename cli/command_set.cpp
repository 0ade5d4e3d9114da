#include "command_set.hpp"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "help_format.hpp"

namespace delayq::cli {
namespace {

std::string last_word(std::string_view path) {
    const auto space = path.rfind(' ');
    return std::string(space == std::string_view::npos ? path : path.substr(space + 1));
}

}  // namespace

CommandSet::CommandSet(CLI::App& root, Invocation& invocation)
    : root_(root), invocation_(invocation) {
    // Both inherited by the commands added later: an option a command does not know goes up to
    // the root, so that a global option may follow the command's name and arguments.
    root_.formatter(make_help_formatter());
    root_.fallthrough();
    root_
        .add_option("--redis", invocation_.redis,
                    "Redis URL: redis://[user[:password]@]host[:port][/db] or "
                    "unix:///path/to/socket[?db=N] (default: $DELAYQ_REDIS_URL, else a "
                    "local redis-server that delayq starts and manages itself)")
        ->type_name("URL");
    root_
        .add_option("--redis-password-file", invocation_.redis_password_file,
                    "File holding the Redis password (one trailing newline is ignored), so that "
                    "it appears in no command line. Used first; then $DELAYQ_REDIS_PASSWORD; "
                    "then the URL's password. With redis://USER@host the URL names the ACL user")
        ->type_name("FILE");
}

CLI::App& CommandSet::parent_of(std::string_view path) {
    CLI::App* parent = &root_;
    std::string_view rest = path;
    for (auto space = rest.find(' '); space != std::string_view::npos; space = rest.find(' ')) {
        const std::string group(rest.substr(0, space));
        const auto found =
            parent->get_subcommands([&](const CLI::App* sub) { return sub->get_name() == group; });
        if (found.empty()) {
            throw std::logic_error("command \"" + std::string(path) +
                                   "\" is added before its group");
        }
        parent = found.front();
        rest.remove_prefix(space + 1);
    }
    return *parent;
}

CLI::App& CommandSet::add_group(const CommandHelp& help) {
    CLI::App* group = parent_of(help.path).add_subcommand(last_word(help.path), help.summary);
    group->require_subcommand(1);
    group->footer(help.details);
    return *group;
}

CLI::App& CommandSet::add(const CommandHelp& help, RunCommand run) {
    CLI::App* command = parent_of(help.path).add_subcommand(last_word(help.path), help.summary);
    command->footer(help.details);
    adopt(*command, std::move(run));
    return *command;
}

void CommandSet::adopt(CLI::App& command, RunCommand run) {
    commands_.push_back({&command, std::move(run)});
}

std::optional<int> CommandSet::run_parsed() const {
    for (const auto& c : commands_) {
        if (c.app->parsed()) return c.run(invocation_);
    }
    return std::nullopt;
}

}  // namespace delayq::cli
