// delayq token new: a fresh token, its hash appended to the auth file, the token printed once.
#include <CLI/CLI.hpp>
#include <auth/token_file.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "auth_file_input.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "queue_patterns.hpp"

namespace delayq::cli {
namespace {

struct NewToken {
    std::string name;
    std::vector<std::string> scopes;
    std::vector<std::string> queues;
    std::string auth_file;
};

std::vector<server::Scope> parse_scopes(const std::vector<std::string>& names) {
    std::vector<server::Scope> out;
    for (const auto& name : names) {
        const auto scope = server::parse_scope(name);
        if (!scope) {
            throw UsageError("unknown scope \"" + name + "\": the scopes are " +
                             server::scope_names());
        }
        out.push_back(*scope);
    }
    if (out.empty()) throw UsageError("--scopes names at least one scope");
    return out;
}

void check_name(const std::string& name, const std::filesystem::path& file) {
    if (name.empty() || name.starts_with('#') ||
        name.find_first_of(" \t\r\n") != std::string::npos) {
        throw UsageError(
            "a token name must be non-empty, without white space, not starting with #");
    }
    if (!std::filesystem::exists(file)) return;
    const server::TokenTable table = read_auth_file(file);
    for (const auto& entry : table.entries()) {
        if (entry.name == name) {
            std::string why = "a token named \"" + name + "\" exists already in ";
            why.append(file.string())
                .append(" (delayq token revoke ")
                .append(name)
                .append(" first)");
            throw UsageError(why);
        }
    }
}

int new_token(const NewToken& t) {
    const auto scopes = parse_scopes(t.scopes);
    const auto patterns = parse_queue_patterns(t.queues);
    check_name(t.name, t.auth_file);
    const std::string token = server::add_token(t.auth_file, t.name, scopes, patterns);
    // Alone on stdout, so that TOKEN=$(delayq token new ...) takes it whole.
    std::printf("%s\n", token.c_str());
    std::fprintf(stderr, "added token %s to %s; it is shown only this once\n", t.name.c_str(),
                 t.auth_file.c_str());
    return kExitOk;
}

}  // namespace

void add_token_new(CommandSet& set) {
    auto t = std::make_shared<NewToken>();
    CLI::App& cmd = set.add(
        {.path = "token new",
         .summary = "Make a token and add its hash to the auth file; print the token once",
         .details =
             R"(Prints the token alone on stdout. The file is created with mode 0600 when it does not
exist; only the token's SHA-256 is written to it.

Examples:
  delayq token new --name shop --scopes send --queues 'orders*' --auth-file auth
  TOKEN=$(delayq token new --name ops --scopes admin --queues '*' --auth-file auth))"},
        [t](const Invocation&) { return new_token(*t); });
    cmd.add_option("--name", t->name, "The token's name, unique in the file")->required();
    cmd.add_option("--scopes", t->scopes, server::scope_names() + " (comma-separated)")
        ->required()
        ->delimiter(',');
    cmd.add_option("--queues", t->queues,
                   "Queue names, prefixes ending in *, or * (comma-separated)")
        ->required()
        ->delimiter(',');
    cmd.add_option("--auth-file", t->auth_file, "The auth file (created if missing)")->required();
}

}  // namespace delayq::cli
