#include "redis/script.hpp"

#include "delayq/error.hpp"
#include "redis/permission.hpp"
#include "redis/redirect.hpp"

namespace delayq::detail {
namespace {

// The argv of FCALL, EVALSHA or EVAL: the command, the function, SHA1 or source, then the
// same keys and arguments whichever. `numkeys` holds the formatted key count and must outlive
// the result.
std::vector<std::string_view> call_argv(std::string_view command, std::string_view target,
                                        const std::string& numkeys,
                                        std::span<const std::string> keys, const ScriptArgs& args) {
    std::vector<std::string_view> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.push_back(command);
    argv.push_back(target);
    argv.emplace_back(numkeys);
    for (const auto& k : keys) argv.emplace_back(k);
    for (auto a : args.views()) argv.push_back(a);
    return argv;
}

// The _RO variants for read-only scripts: a read-only ACL user may run them (delayq acl's
// reader role), and Redis refuses any write they would attempt.
std::string_view fcall_command(const ScriptSource& script) {
    return script.read_only ? "FCALL_RO" : "FCALL";
}

std::string_view evalsha_command(const ScriptSource& script) {
    return script.read_only ? "EVALSHA_RO" : "EVALSHA";
}

std::string_view eval_command(const ScriptSource& script) {
    return script.read_only ? "EVAL_RO" : "EVAL";
}

bool is_noscript(const Reply& reply) {
    return reply.is_error() && reply.str.starts_with("NOSCRIPT");
}

bool is_function_missing(const Reply& reply) {
    return reply.is_error() && reply.str.find("Function not found") != std::string::npos;
}

// NOPERM for FCALL itself, not for a command the function ran: the user may run scripts only.
bool is_fcall_refused(const Reply& reply) {
    return reply.is_error() && reply.str.starts_with("NOPERM") &&
           (reply.str.find("'fcall") != std::string::npos ||
            reply.str.find("'FCALL") != std::string::npos);
}

void append_call(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                 const ScriptArgs& args, ScriptVia via) {
    const std::string numkeys = std::to_string(keys.size());
    if (via == ScriptVia::kFunction) {
        conn.append(call_argv(fcall_command(script), script.function, numkeys, keys, args));
    } else {
        conn.append(call_argv(evalsha_command(script), script.sha1, numkeys, keys, args));
    }
}

// One call as a function or as a script, waiting for its reply; `conn` has none pending.
Reply call_now(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
               const ScriptArgs& args, ScriptVia via) {
    append_call(conn, script, keys, args, via);
    return conn.read();
}

}  // namespace

ScriptVia append_script(NodeEngine& node, Connection& conn, const ScriptSource& script,
                        std::span<const std::string> keys, const ScriptArgs& args) {
    const ScriptVia via = node.functions_ready() ? ScriptVia::kFunction : ScriptVia::kScript;
    append_call(conn, script, keys, args, via);
    return via;
}

Reply script_reply(NodeEngine& node, Connection& conn, const ScriptSource& script,
                   std::span<const std::string> keys, const ScriptArgs& args, ScriptVia via,
                   Reply reply) {
    if (via == ScriptVia::kFunction && is_function_missing(reply)) {
        // The node lost the library: check (and load) it again and call once more; where the
        // load is refused, or the function went missing again, the script runs the call.
        node.function_missing();
        via = node.use_functions(conn) ? ScriptVia::kFunction : ScriptVia::kScript;
        reply = call_now(conn, script, keys, args, via);
        if (via == ScriptVia::kFunction && is_function_missing(reply)) {
            via = ScriptVia::kScript;
            reply = call_now(conn, script, keys, args, via);
        }
    }
    std::string fcall_refusal;
    if (via == ScriptVia::kFunction && is_fcall_refused(reply)) {
        fcall_refusal = reply.str;
        via = ScriptVia::kScript;
        reply = call_now(conn, script, keys, args, via);
    }
    std::string_view command =
        via == ScriptVia::kFunction ? fcall_command(script) : evalsha_command(script);
    if (is_noscript(reply)) {
        // EVAL runs and caches the script in one command. SCRIPT LOAD then EVALSHA again would
        // fail whenever another client's SCRIPT FLUSH fell between the two.
        const std::string numkeys = std::to_string(keys.size());
        command = eval_command(script);
        reply = conn.command(call_argv(command, script.source, numkeys, keys, args));
    }
    // A user the script serves where the function was refused runs scripts from now on; one
    // refused both (a reader's write) is only refused, and keeps the functions it may call.
    if (!fcall_refusal.empty() && !is_permission_error(reply)) {
        node.refuse("the ACL user may not call functions (" + fcall_refusal + ")");
    }
    if (!reply.is_error()) return reply;
    if (auto redirect = parse_redirect(reply)) {
        throw RedirectedError(std::string(script.name) + ": " + reply.str, std::move(*redirect));
    }
    if (is_read_only(reply)) {
        throw ReadOnlyError(std::string(script.name) + " was refused by a replica: " + reply.str);
    }
    if (is_transient_refusal(reply)) {
        throw TransientRefusalError(std::string(script.name) +
                                    " was refused for now: " + reply.str);
    }
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

Reply run_script(NodeEngine& node, Connection& conn, const ScriptSource& script,
                 std::span<const std::string> keys, const ScriptArgs& args) {
    const ScriptVia via = node.use_functions(conn) ? ScriptVia::kFunction : ScriptVia::kScript;
    Reply reply = call_now(conn, script, keys, args, via);
    return script_reply(node, conn, script, keys, args, via, std::move(reply));
}

}  // namespace delayq::detail
