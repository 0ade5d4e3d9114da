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

// One set of TLS file options: --<flags>ca, -cert, -key, -server-name and their <env>CA ...
// variables. The data servers and the sentinels each have one, with help of their own.
struct TlsOptionNames {
    std::string_view flags;  // "--redis-tls-"
    std::string_view env;    // "DELAYQ_REDIS_TLS_"
    std::string_view ca_help, cert_help, key_help, server_name_help;
};

void add_tls_files(CLI::App& root, TlsOptions& tls, const TlsOptionNames& names) {
    const auto add = [&](std::string& into, std::string_view part, std::string_view env_part,
                         std::string_view help, const char* type) {
        root.add_option(std::string(names.flags) + std::string(part), into, std::string(help))
            ->type_name(type)
            ->envname(std::string(names.env) + std::string(env_part));
    };
    add(tls.ca_file, "ca", "CA", names.ca_help, "FILE");
    add(tls.cert_file, "cert", "CERT", names.cert_help, "FILE");
    add(tls.key_file, "key", "KEY", names.key_help, "FILE");
    add(tls.server_name, "server-name", "SERVER_NAME", names.server_name_help, "NAME");
}

// TLS to Redis. The --redis- prefix keeps them apart from `delayq serve`'s own listener options.
void add_tls_options(CLI::App& root, TlsOptions& tls) {
    add_tls_files(
        root, tls,
        {.flags = "--redis-tls-",
         .env = "DELAYQ_REDIS_TLS_",
         .ca_help = "With a rediss:// URL: the CA certificates (PEM) the server's certificate "
                    "must chain to (default: the system's trusted CAs)",
         .cert_help = "Client certificate (PEM) for a Redis that requires one (mutual TLS); with "
                      "--redis-tls-key",
         .key_help = "The unencrypted private key (PEM) of --redis-tls-cert",
         .server_name_help = "The name the server's certificate must carry, also sent as SNI "
                             "(default: the URL's host)"});
    root.add_flag("--redis-tls-insecure-skip-verify", tls.insecure_skip_verify,
                  "Accept any server certificate and name: for tests only (a warning says so)")
        ->envname("DELAYQ_REDIS_TLS_INSECURE_SKIP_VERIFY");
}

// The sentinels of a redis+sentinel:// URL have credentials and TLS of their own: the URL's
// and --redis-password-file are the data servers'.
void add_sentinel_options(CLI::App& root, Invocation& invocation) {
    root.add_option("--redis-sentinel-password-file", invocation.redis_sentinel_password_file,
                    "With a redis+sentinel:// URL: file holding the sentinels' password (one "
                    "trailing newline is ignored). Used first; then "
                    "$DELAYQ_REDIS_SENTINEL_PASSWORD")
        ->type_name("FILE")
        ->envname("DELAYQ_REDIS_SENTINEL_PASSWORD_FILE");
    root.add_option("--redis-sentinel-user", invocation.redis_sentinel_user,
                    "With a redis+sentinel:// URL: the sentinels' ACL user, with the password "
                    "above (default: none, or their default user)")
        ->type_name("NAME")
        ->envname("DELAYQ_REDIS_SENTINEL_USER");
    add_tls_files(
        root, invocation.redis_sentinel_tls,
        {.flags = "--redis-sentinel-tls-",
         .env = "DELAYQ_REDIS_SENTINEL_TLS_",
         .ca_help = "TLS to the sentinels (also on with rediss+sentinel://): the CA "
                    "certificates (PEM) their certificates must chain to (default: "
                    "--redis-tls-ca's)",
         .cert_help = "Client certificate (PEM) for sentinels that require one; with "
                      "--redis-sentinel-tls-key",
         .key_help = "The unencrypted private key (PEM) of --redis-sentinel-tls-cert",
         .server_name_help = "The name the sentinels' certificates must carry, also sent as SNI "
                             "(default: each sentinel's host in the URL)"});
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
                    "Redis URL: redis://[user[:password]@]host[:port][/db], "
                    "redis+sentinel://[user[:password]@]host[:port],.../MASTER[/db] or "
                    "unix:///path/to/socket[?db=N] (default: $DELAYQ_REDIS_URL, else a "
                    "local redis-server that delayq starts and manages itself)")
        ->type_name("URL");
    root_
        .add_option("--redis-password-file", invocation_.redis_password_file,
                    "File holding the Redis password (one trailing newline is ignored), so that "
                    "it appears in no command line. Used first; then $DELAYQ_REDIS_PASSWORD; "
                    "then the URL's password. With redis://USER@host the URL names the ACL user")
        ->type_name("FILE");
    add_tls_options(root_, invocation_.redis_tls);
    add_sentinel_options(root_, invocation_);
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
