// delayq token: the group of the commands that manage the HTTP service's auth file.
#include "command_set.hpp"

namespace delayq::cli {

void add_token(CommandSet& set) {
    set.add_group(
        {.path = "token",
         .summary = "Tokens of the HTTP service's auth file: new, list, revoke",
         .details =
             R"(`delayq serve --auth-file FILE` lets in only requests that bear a token of FILE, with
the scopes (send, consume, read, schedule, admin) and on the queues its entry names. The file
holds only SHA-256 hashes of the tokens: a token is shown once, when it is made. A running
server re-reads the file on SIGHUP.

Examples:
  delayq token new --name billing-worker --scopes consume --queues 'billing-*' --auth-file auth
  delayq token list --auth-file auth
  delayq token revoke billing-worker --auth-file auth)"});
}

}  // namespace delayq::cli
