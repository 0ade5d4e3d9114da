#include "redis/script.hpp"

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

Reply evalsha(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
              const ScriptArgs& args) {
    std::string numkeys = std::to_string(keys.size());
    std::vector<std::string_view> argv;
    argv.reserve(3 + keys.size() + args.size());
    argv.emplace_back("EVALSHA");
    argv.emplace_back(script.sha1);
    argv.emplace_back(numkeys);
    for (const auto& k : keys) argv.emplace_back(k);
    for (auto a : args.views()) argv.push_back(a);
    return conn.command(argv);
}

}  // namespace

Reply run_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                 const ScriptArgs& args) {
    Reply reply = evalsha(conn, script, keys, args);
    if (reply.is_error() && reply.str.starts_with("NOSCRIPT")) {
        Reply loaded = conn.command({"SCRIPT", "LOAD", script.source});
        if (loaded.is_error()) {
            throw ServerError(std::string("Redis refused to load script ") + script.name + ": " +
                              loaded.str);
        }
        reply = evalsha(conn, script, keys, args);
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
