// delayq token revoke: removes a token's entry from the auth file.
#include <CLI/CLI.hpp>
#include <auth/token_file.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "auth_file_input.hpp"
#include "command_set.hpp"
#include "errors.hpp"

namespace delayq::cli {
namespace {

struct Revoke {
    std::string name;
    std::string file;
};

int revoke_token(const Revoke& r) {
    read_auth_file(r.file);  // a broken file is the caller's to mend: exit 2, nothing written
    if (!server::revoke_token(r.file, r.name)) {
        throw RuntimeFailure("no token named \"" + r.name + "\" in " + r.file);
    }
    std::printf(
        "revoked %s: a server running with %s refuses it once it re-reads the file "
        "(SIGHUP)\n",
        r.name.c_str(), r.file.c_str());
    return kExitOk;
}

}  // namespace

void add_token_revoke(CommandSet& set) {
    auto r = std::make_shared<Revoke>();
    CLI::App& cmd = set.add(
        {.path = "token revoke",
         .summary = "Remove a token from the auth file",
         .details =
             R"(The file is replaced whole, so that a server re-reading it never sees half of it.

Examples:
  delayq token revoke shop --auth-file auth
  kill -HUP $(pidof delayq))"},
        [r](const Invocation&) { return revoke_token(*r); });
    cmd.add_option("NAME", r->name, "The token's name")->required();
    cmd.add_option("--auth-file", r->file, "The auth file")->required();
}

}  // namespace delayq::cli
