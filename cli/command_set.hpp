#pragma once

#include <delayq/options.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace delayq::cli {

// `consume QUEUE -- CMD ARGS...`: main() splits off what follows `--` before parsing, so that
// the command's own options are not taken for delayq's.
struct TrailingCommand {
    bool given = false;  // `--` was there
    std::vector<std::string> argv;
};

// What every command's run gets: the global options (which work before or after the command's
// name) and what followed `--`.
struct Invocation {
    std::string redis;  // --redis URL; empty: $DELAYQ_REDIS_URL, else the managed local server
    std::string redis_password_file;  // --redis-password-file; empty: $DELAYQ_REDIS_PASSWORD
    TlsOptions redis_tls;  // --redis-tls-*, else $DELAYQ_REDIS_TLS_*: for a rediss:// URL
    // For a redis+sentinel:// URL: the sentinels' own password and TLS.
    std::string redis_sentinel_password_file;  // empty: $DELAYQ_REDIS_SENTINEL_PASSWORD
    std::string redis_sentinel_user;           // --redis-sentinel-user: their ACL user
    TlsOptions redis_sentinel_tls;             // --redis-sentinel-tls-*
    TrailingCommand trailing;
};

// How a command presents itself in --help.
struct CommandHelp {
    std::string path;     // "stats", or "dead list" for a command of a group
    std::string summary;  // one line, in the list of its parent's commands
    std::string details;  // the rest of its --help: what it prints, caveats, "Examples:"
};

using RunCommand = std::function<int(const Invocation&)>;

// Every command of the tool, each declared in its own file under commands/ by an
// add_<name>(CommandSet&) function: it calls add() (or add_group()) once and declares its
// options on the CLI::App returned. The global options, the help footer and the exit statuses
// are the same for all and live here.
class CommandSet {
  public:
    // Declares the global options on `root` and makes every command added later accept them.
    CommandSet(CLI::App& root, Invocation& invocation);

    CLI::App& root() { return root_; }
    const Invocation& invocation() const { return invocation_; }

    // A name that only groups commands (`dead`, `queue`): one of them must follow it. A group
    // is added before its commands.
    CLI::App& add_group(const CommandHelp& help);
    CLI::App& add(const CommandHelp& help, RunCommand run);
    // A command declared on a CLI::App of its own making, with its own way of running.
    void adopt(CLI::App& command, RunCommand run);

    // The exit status of the command the parse selected; nullopt when none was.
    std::optional<int> run_parsed() const;

  private:
    CLI::App& parent_of(std::string_view path);

    struct Entry {
        CLI::App* app;
        RunCommand run;
    };
    CLI::App& root_;
    Invocation& invocation_;
    std::vector<Entry> commands_;
};

// Registers every command (commands/all.cpp).
void add_all_commands(CommandSet& set);

}  // namespace delayq::cli
