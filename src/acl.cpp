#include "delayq/acl.hpp"

#include <array>

#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "keys.hpp"

namespace delayq {
namespace {

// What the client sends outside scripts: PING (Client::ping), INFO (the server check on the
// first connection), TIME (server_time, the waiter's clock), SELECT (a URL's /db), SCAN
// (Client::queues), SSUBSCRIBE (the waiter); CLUSTER SHARDS and ASKING for the cluster client,
// ROLE for the Sentinel client (a master the sentinels name must say it is one). AUTH and HELLO
// need no grant.
constexpr std::array kReaderCommands = {
    "+ping", "+info", "+time", "+select", "+scan", "+ssubscribe", "+cluster|shards", "+asking",
    "+role",
    // The read-only scripts (flags=no-writes) as functions, FUNCTION LIST to check the loaded
    // library's code first, and as scripts where the library is not loaded (the fallback);
    // then what they call.
    "+fcall_ro", "+function|list", "+evalsha_ro", "+eval_ro", "+exists", "+hget", "+hmget",
    "+hgetall", "+hlen", "+hscan", "+zcard", "+zcount", "+zmscore", "+zrange", "+zrangebyscore",
    "+zrevrangebyscore", "+zrank", "+zscore"};
// The other scripts (as functions, or as scripts), and the writes they call; SPUBLISH wakes
// consumers. WAIT follows each send of a durable handle (QueueOptions::durability).
constexpr std::array kWriterCommands = {
    "+fcall", "+evalsha",         "+eval",     "+hset", "+hdel", "+hincrby", "+zadd",
    "+zrem",  "+zremrangebyrank", "+spublish", "+wait"};
// push_read.lua reads a push target's credentials (a string under dqs:).
constexpr std::array kPusherCommands = {"+get"};
// delete.lua and push_remove.lua unlink a queue's keys; push_set.lua writes the credentials.
constexpr std::array kAdminCommands = {"+unlink", "+set"};

// `text` with Redis glob's special characters escaped.
std::string glob_escape(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

// The glob of the queue names `pattern` matches, inside a key's hash tag.
std::string queue_glob(const QueuePattern& pattern) {
    const std::string& name = pattern.literal();
    if (!name.empty()) {
        try {
            validate_queue_name(name);
        } catch (const InvalidArgument& e) {
            throw InvalidArgument("queue pattern \"" + pattern.text() +
                                  "\" names no queue: " + e.what());
        }
    }
    return glob_escape(name) + (pattern.is_prefix() ? "*" : "");
}

void validate_user(std::string_view user) {
    bool ok = !user.empty() && user.size() <= 128;
    for (const char c : user) ok = ok && c > ' ' && c <= '~';
    if (!ok) {
        throw InvalidArgument(
            "ACL user name must be 1..128 bytes of printable ASCII without "
            "spaces");
    }
}

}  // namespace

std::optional<AclRole> parse_acl_role(std::string_view text) {
    if (text == "reader") return AclRole::kReader;
    if (text == "writer") return AclRole::kWriter;
    if (text == "pusher") return AclRole::kPusher;
    if (text == "admin") return AclRole::kAdmin;
    return std::nullopt;
}

std::string_view to_string(AclRole role) {
    switch (role) {
        case AclRole::kReader:
            return "reader";
        case AclRole::kWriter:
            return "writer";
        case AclRole::kPusher:
            return "pusher";
        case AclRole::kAdmin:
            return "admin";
    }
    return "?";
}

std::vector<std::vector<std::string>> acl_commands(std::string_view user, AclRole role,
                                                   const std::vector<QueuePattern>& queues) {
    validate_user(user);
    if (queues.empty()) throw InvalidArgument("at least one queue pattern is needed");
    const std::string name(user);
    std::vector<std::string> commands = {
        "ACL", "SETUSER", name, "on", "resetkeys", "resetchannels", "clearselectors", "-@all"};
    commands.insert(commands.end(), kReaderCommands.begin(), kReaderCommands.end());
    if (role != AclRole::kReader) {
        commands.insert(commands.end(), kWriterCommands.begin(), kWriterCommands.end());
    }
    if (role == AclRole::kPusher || role == AclRole::kAdmin) {
        commands.insert(commands.end(), kPusherCommands.begin(), kPusherCommands.end());
    }
    if (role == AclRole::kAdmin) {
        commands.insert(commands.end(), kAdminCommands.begin(), kAdminCommands.end());
    }
    std::vector<std::vector<std::string>> out = {std::move(commands)};
    // Read-only key access lets Redis itself refuse a reader's writes, whatever script it runs.
    const std::string key_access = role == AclRole::kReader ? "%R~" : "~";
    for (const QueuePattern& pattern : queues) {
        const std::string glob = queue_glob(pattern);
        const std::string prefix = std::string(detail::kKeyPrefix) + "{" + glob + "}:";
        out.push_back({"ACL", "SETUSER", name, key_access + prefix + "*",
                       "&" + prefix + std::string(detail::kKeySuffixes[detail::kWakeChannel])});
        // The push targets' credentials: under their own prefix, so that the pattern above does
        // not reach them (docs/security.md). A pusher reads them; an admin sets them.
        if (role == AclRole::kPusher || role == AclRole::kAdmin) {
            std::string grant = role == AclRole::kAdmin ? "~" : "%R~";
            grant.append(detail::kSecretKeyPrefix).append("{").append(glob).append("}:*");
            out.push_back({"ACL", "SETUSER", name, std::move(grant)});
        }
    }
    // The indexes of queues with schedules and with push targets, which every queue shares:
    // readers list them, writers register their queues (docs/design.md, Schedules).
    out.push_back({"ACL", "SETUSER", name, key_access + std::string(detail::kScheduleRegistryKey),
                   key_access + std::string(detail::kPushRegistryKey)});
    return out;
}

std::vector<std::string> acl_shared_secret_command(std::string_view user) {
    validate_user(user);
    // A selector, so that +set reaches this key only: granted beside the queues' keys, it would
    // let the user overwrite them with strings. SET ... NX GET reads the key too.
    return {"ACL", "SETUSER", std::string(user),
            "(~" + std::string(detail::kSharedSecretKey) + " +set)"};
}

std::vector<std::string> acl_functions_command(std::string_view user) {
    validate_user(user);
    // Added to the user's commands, not reset: it goes after a role's lines. No FUNCTION FLUSH
    // (delayq never flushes) and no RESTORE: DELETE removes one library by name.
    return {"ACL",
            "SETUSER",
            std::string(user),
            "+function|load",
            "+function|list",
            "+function|delete"};
}

std::string redis_cli_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const std::string& arg : argv) {
        if (!line.empty()) line += ' ';
        const bool plain = !arg.empty() && arg.find_first_of(" \t\"'\\") == std::string::npos;
        if (plain) {
            line += arg;
            continue;
        }
        line += '"';
        for (const char c : arg) {
            if (c == '"' || c == '\\') line += '\\';
            line += c;
        }
        line += '"';
    }
    return line;
}

}  // namespace delayq
