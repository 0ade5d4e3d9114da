#pragma once

// The Redis ACL rules a delayq user needs (`delayq acl`): least privilege enforced by Redis.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/queue_pattern.hpp"

namespace delayq {

// Each role has every grant of the roles before it.
enum class AclRole {
    // Stats, peek, get, list, waiting for messages: read-only functions and scripts
    // (FCALL_RO, EVALSHA_RO), read-only key access, SCAN. Redis refuses it every write. No role
    // may FUNCTION LOAD (not key-scoped): an operator's user (acl_functions_command), or any
    // user with the right, loads the library; until then the roles run scripts.
    kReader,
    // Also sends, consumes, acks, nacks, cancels, reschedules, settings, dead-letter requeue and
    // purge: every script on the queues' keys. Redis cannot tell these apart (see
    // docs/security.md).
    kWriter,
    // Also reading the push targets' header values and secrets (`dqs:{q}:push`, read-only):
    // what a pusher (`delayq push run`, `delayq serve` with pushers) needs.
    kPusher,
    // Also deleting a queue (its keys are unlinked), and setting and removing push targets
    // (writing their credentials).
    kAdmin,
};

// "reader", "writer", "pusher", "admin"; nullopt for anything else.
std::optional<AclRole> parse_acl_role(std::string_view text);
std::string_view to_string(AclRole role);

// The ACL SETUSER commands, each as its arguments, that make `user` exactly `role` on `queues`:
// the first resets the user's keys, channels, selectors and commands and grants the commands;
// then one per pattern grants its keys and wake channel. Passwords are left as they are (add
// them with `ACL SETUSER user >password`); the user is switched on. Throws InvalidArgument for
// a user name that is empty, over 128 bytes, or not printable ASCII without spaces, for no
// patterns, and for a pattern that names no valid queue name (or prefix of one).
std::vector<std::vector<std::string>> acl_commands(std::string_view user, AclRole role,
                                                   const std::vector<QueuePattern>& queues);

// The ACL SETUSER command that also lets `user` read and create Client::shared_secret (a
// selector: SET on that one key, nothing else), which `delayq serve` needs unless it is given
// --lease-key-file. Throws InvalidArgument for a bad user name, as acl_commands.
std::vector<std::string> acl_shared_secret_command(std::string_view user);

// The ACL SETUSER command that also lets `user` load, list and delete Redis function libraries
// (FUNCTION LOAD, LIST, DELETE): the operator's grant that `delayq functions load` and `prune`
// need, and with which a client loads the library itself. Not key-scoped: a library is code
// for every user of the server, so no role has it. Throws InvalidArgument for a bad user name,
// as acl_commands.
std::vector<std::string> acl_functions_command(std::string_view user);

// One command as a line redis-cli reads (from its standard input, say): arguments separated
// by spaces, double-quoted where redis-cli would otherwise split or unescape them.
std::string redis_cli_line(const std::vector<std::string>& argv);

}  // namespace delayq
