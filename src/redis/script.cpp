#include "redis/script.hpp"

#include "delayq/error.hpp"
#include "redis/permission.hpp"

namespace delayq::detail {
namespace {

// The argv of EVALSHA or EVAL with the whole source: the same call either way. `numkeys` holds
// the formatted key count and must outlive the result.
std::vector<std::string_view> eval_argv(std::string_view command, std::string_view script_or_sha,
                                        const std::string& numkeys,
                                        std::span<const std::string> keys, const ScriptArgs& args) {
    std::vector<std::string_view> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.push_back(command);
    argv.push_back(script_or_sha);
    argv.emplace_back(numkeys);
    for (const auto& k : keys) argv.emplace_back(k);
    for (auto a : args.views()) argv.push_back(a);
    return argv;
}

// The _RO variants for read-only scripts: a read-only ACL user may run them (delayq acl's
// reader role), and Redis refuses any write they would attempt.
std::string_view evalsha_command(const ScriptSource& script) {
    return script.read_only ? "EVALSHA_RO" : "EVALSHA";
}

std::string_view eval_command(const ScriptSource& script) {
    return script.read_only ? "EVAL_RO" : "EVAL";
}

}  // namespace

bool is_noscript(const Reply& reply) {
    return reply.is_error() && reply.str.starts_with("NOSCRIPT");
}

void append_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                   const ScriptArgs& args) {
    const std::string numkeys = std::to_string(keys.size());
    conn.append(eval_argv(evalsha_command(script), script.sha1, numkeys, keys, args));
}

Reply script_reply(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                   const ScriptArgs& args, Reply reply) {
    std::string_view command = evalsha_command(script);
    if (is_noscript(reply)) {
        // EVAL runs and caches the script in one command. SCRIPT LOAD then EVALSHA again would
        // fail whenever another client's SCRIPT FLUSH fell between the two.
        const std::string numkeys = std::to_string(keys.size());
        command = eval_command(script);
        reply = conn.command(eval_argv(command, script.source, numkeys, keys, args));
    }
    if (!reply.is_error()) return reply;
    check_permission(reply, command, std::string("delayq script ") + script.name);
    const std::string& e = reply.str;
    if (e.starts_with("OOM")) {
        throw OutOfMemoryError(std::string("Redis is out of memory (maxmemory reached); ") +
                               script.name + " was refused and wrote nothing: " + e);
    }
    if (const auto at = e.find("delayq layout: "); at != std::string::npos) {
        throw ConfigurationError(std::string(script.name) + ": " + e.substr(at + 15));
    }
    if (e.find("delayq: ") != std::string::npos) {
        throw InvalidArgument(std::string(script.name) + ": " + e.substr(e.find("delayq: ") + 8));
    }
    throw ServerError(std::string("script ") + script.name + " failed: " + e);
}

Reply run_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                 const ScriptArgs& args) {
    append_script(conn, script, keys, args);
    Reply reply = conn.read();
    return script_reply(conn, script, keys, args, std::move(reply));
}

}  // namespace delayq::detail
