// Per-script attribution from SLOWLOG, and the data files for bench/plot.sh.
//
// With slowlog-log-slower-than 0, Redis 7 logs every command, including those a script runs
// (client address "?:0"); a script's commands are logged just before its EVALSHA, and nothing
// can come between them, so each group of inner entries belongs to the EVALSHA that follows.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "modes.hpp"

namespace delayq::bench {
namespace {

std::string saved_threshold = "10000";
std::string saved_max_len = "128";

std::string config_get(Probe& probe, const std::string& name) {
    RawReply r = probe.command({"CONFIG", "GET", name});
    if (r.elements.size() == 2) return r.elements[1].str;
    return {};
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

// The real argument count: SLOWLOG keeps 32 and says "... (N more arguments)" in the last.
std::size_t arg_count(const std::vector<RawReply>& args) {
    if (args.empty()) return 0;
    const std::string& last = args.back().str;
    if (last.starts_with("... (")) {
        return args.size() - 1 + static_cast<std::size_t>(std::stoul(last.substr(5)));
    }
    return args.size();
}

struct InnerStat {
    std::int64_t calls = 0;
    std::int64_t usec = 0;
};

struct ScriptStat {
    std::int64_t calls = 0;
    std::int64_t msgs = 0;
    std::int64_t usec = 0;
    std::map<std::string, InnerStat> inner;
};

struct InnerEntry {
    std::string name;
    std::int64_t usec = 0;
    std::size_t argc = 0;
};

// Names the script of an EVALSHA from its argument count and the commands it ran, and counts
// the messages it handled.
std::pair<std::string, std::int64_t> classify(const std::vector<RawReply>& args,
                                              const std::vector<InnerEntry>& inner) {
    const std::size_t argc = arg_count(args);
    const std::size_t numkeys = args.size() > 2 ? std::stoul(args[2].str) : 0;
    const std::size_t argv = argc >= 3 + numkeys ? argc - 3 - numkeys : 0;
    const bool timed = std::any_of(inner.begin(), inner.end(),
                                   [](const InnerEntry& e) { return e.name == "time"; });
    if (timed && argv == 4) {  // fetch: max_count, visibility, dead_max_count, dead_max_age
        std::int64_t leased = 0;
        for (const auto& e : inner) {
            if (e.name == "hset") leased = static_cast<std::int64_t>((e.argc - 2) / 2);
        }
        return {"fetch", leased};
    }
    if (timed && argv % 6 == 0) return {"send", static_cast<std::int64_t>(argv / 6)};
    if (timed && argv % 2 == 1) return {"extend", static_cast<std::int64_t>(argv / 2)};
    if (!timed && argv % 2 == 0) return {"ack", static_cast<std::int64_t>(argv / 2)};
    return {"other", 0};
}

}  // namespace

void slowlog_start(Probe& probe, std::size_t max_len) {
    saved_threshold = config_get(probe, "slowlog-log-slower-than");
    saved_max_len = config_get(probe, "slowlog-max-len");
    probe.command({"CONFIG", "SET", "slowlog-max-len", std::to_string(max_len)});
    probe.command({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
    probe.command({"SLOWLOG", "RESET"});
}

Json slowlog_collect(Probe& probe) {
    probe.command({"CONFIG", "SET", "slowlog-log-slower-than", saved_threshold});
    RawReply log = probe.command({"SLOWLOG", "GET", "-1"});
    probe.command({"SLOWLOG", "RESET"});
    probe.command({"CONFIG", "SET", "slowlog-max-len", saved_max_len});

    std::map<std::string, ScriptStat> scripts;
    std::vector<InnerEntry> group;
    // Newest first: walk it backwards.
    for (auto it = log.elements.rbegin(); it != log.elements.rend(); ++it) {
        const auto& e = it->elements;
        if (e.size() < 5 || e[3].elements.empty()) continue;
        const auto& args = e[3].elements;
        const std::string cmd = upper(args[0].str);
        if (cmd == "EVALSHA") {
            auto [name, msgs] = classify(args, group);
            ScriptStat& s = scripts[name];
            s.calls += 1;
            s.msgs += msgs;
            s.usec += e[2].integer;
            for (const auto& g : group) {
                s.inner[g.name].calls += 1;
                s.inner[g.name].usec += g.usec;
            }
            group.clear();
        } else if (e[4].str.starts_with("?")) {  // run by a script
            std::string name = args[0].str;
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            group.push_back(InnerEntry{name, e[2].integer, arg_count(args)});
        }
    }
    Json out = Json::object();
    for (const auto& [name, s] : scripts) {
        const double msgs = static_cast<double>(std::max<std::int64_t>(1, s.msgs));
        const double total = static_cast<double>(std::max<std::int64_t>(1, s.usec));
        std::int64_t inner_usec = 0;
        Json inner = Json::object();
        std::vector<std::pair<std::string, InnerStat>> sorted(s.inner.begin(), s.inner.end());
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& a, const auto& b) { return a.second.usec > b.second.usec; });
        for (const auto& [cmd, st] : sorted) {
            inner_usec += st.usec;
            inner[cmd] = Json{
                {"calls_per_call", static_cast<double>(st.calls) / static_cast<double>(s.calls)},
                {"usec_per_msg", static_cast<double>(st.usec) / msgs},
                {"pct_of_script", 100.0 * static_cast<double>(st.usec) / total}};
        }
        out[name] =
            Json{{"calls", s.calls},
                 {"msgs_per_call", static_cast<double>(s.msgs) / static_cast<double>(s.calls)},
                 {"usec_per_call", static_cast<double>(s.usec) / static_cast<double>(s.calls)},
                 {"usec_per_msg", static_cast<double>(s.usec) / msgs},
                 {"inner_usec_per_msg", static_cast<double>(inner_usec) / msgs},
                 {"lua_usec_per_msg", static_cast<double>(s.usec - inner_usec) / msgs},
                 {"inner", inner}};
    }
    return out;
}

void write_data(const Context& ctx, const std::string& name, const std::string& text, bool append) {
    const std::string& dir = ctx.settings().data_dir;
    if (dir.empty()) return;
    std::filesystem::create_directories(dir);
    std::ofstream f(std::filesystem::path(dir) / name, append ? std::ios::app : std::ios::trunc);
    f << text;
}

}  // namespace delayq::bench
