#include "redis/script.hpp"

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

// EVALSHA, or EVAL with the whole source: the same call either way.
Reply eval(Connection& conn, std::string_view command, std::string_view script_or_sha,
           std::span<const std::string> keys, const ScriptArgs& args) {
    std::string numkeys = std::to_string(keys.size());
    std::vector<std::string_view> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.push_back(command);
    argv.push_back(script_or_sha);
    argv.emplace_back(numkeys);
    for (const auto& k : keys) argv.emplace_back(k);
    for (auto a : args.views()) argv.push_back(a);
    return conn.command(argv);
}

}  // namespace

Reply run_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                 const ScriptArgs& args) {
    Reply reply = eval(conn, "EVALSHA", script.sha1, keys, args);
    if (reply.is_error() && reply.str.starts_with("NOSCRIPT")) {
        // EVAL runs and caches the script in one command. SCRIPT LOAD then EVALSHA again would
        // fail whenever another client's SCRIPT FLUSH fell between the two.
        reply = eval(conn, "EVAL", script.source, keys, args);
    }
    if (!reply.is_error()) return reply;
    const std::string& e = reply.str;
    if (e.starts_with("OOM")) {
        throw OutOfMemoryError(std::string("Redis is out of memory (maxmemory reached); ") +
                               script.name + " was refused and wrote nothing: " + e);
    }
    if (e.find("delayq: ") != std::string::npos) {
        throw InvalidArgument(std::string(script.name) + ": " + e.substr(e.find("delayq: ") + 8));
    }
    throw ServerError(std::string("script ") + script.name + " failed: " + e);
}

}  // namespace delayq::detail
