#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "auth/token_table.hpp"

// The auth file on disk, for `delayq serve --auth-file` and `delayq token new|list|revoke`.
namespace delayq::server {

// Reads and parses the file; throws AuthFileError.
TokenTable load_token_file(const std::filesystem::path& path);

// Appends an entry for a fresh token and returns the token, which is shown once and stored
// nowhere. A file that does not exist is created with mode 0600. Throws AuthFileError for a name
// that is empty, has white space, starts with `#` or is taken, for no scope or no pattern, for a
// pattern with a comma (which separates a line's patterns), and when the file cannot be written;
// nothing is written then.
std::string add_token(const std::filesystem::path& path, const std::string& name,
                      const std::vector<Scope>& scopes, const std::vector<QueuePattern>& queues);

// Removes the entry named `name`, keeping every other line as it is; false when there is none.
// The file is replaced whole (a new file renamed over it, mode 0600), so that a server
// re-reading it on SIGHUP never sees half of it.
bool revoke_token(const std::filesystem::path& path, std::string_view name);

}  // namespace delayq::server
