#pragma once

// The auth file as the `token` commands read it.
#include <auth/token_table.hpp>
#include <filesystem>

namespace delayq::cli {

// Reads and parses the file named by --auth-file. One that cannot be read or holds a bad line is
// the caller's input: UsageError (exit 2) naming the option, as `delayq serve --auth-file` says
// it; nothing is written then. Failing to write it afterwards is a runtime failure (exit 1).
server::TokenTable read_auth_file(const std::filesystem::path& file);

}  // namespace delayq::cli
