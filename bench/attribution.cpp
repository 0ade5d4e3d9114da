// Per-script attribution from SLOWLOG, and the data files for bench/plot.sh.
//
// With slowlog-log-slower-than 0, Redis 7 logs every command, including those a script runs
// (client address "?:0"); a script's commands are logged just before its EVALSHA, and nothing
// can come between them, so each group of inner entries belongs to the EVALSHA that follows.
// The same holds for FCALL, which names the function instead of the SHA1.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "modes.hpp"
#include "scripts.hpp"

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
    std::string counter;       // HINCRBY stats: the field
    std::int64_t counted = 0;  // and the increment
};

// Names the script of an EVALSHA by its SHA1 (of an FCALL by its function), and counts the
// messages it handled by the stats counter it moved (sent, delivered, acked...): argument counts
// no longer tell the scripts apart (a send's runs vary in width).
std::pair<std::string, std::int64_t> classify(const std::vector<RawReply>& args,
                                              const std::vector<InnerEntry>& inner) {
    using namespace detail::scripts;
    static const auto kByHash = [] {
        const std::pair<const detail::ScriptSource*, std::string> known[] = {
            {&kSend, "sent"}, {&kFetch, "delivered"},  {&kAck, "acked"}, {&kNack, "retried"},
            {&kExtend, ""},   {&kRelease, "released"}, {&kStats, ""},    {&kSettings, ""},
        };
        std::map<std::string, std::pair<std::string, std::string>> by;
        for (const auto& [script, counter] : known) {
            by[script->sha1] = {script->name, counter};
            by[script->function] = {script->name, counter};
        }
        return by;
    }();
    const auto it = args.size() > 1 ? kByHash.find(args[1].str) : kByHash.end();
    if (it == kByHash.end()) return {"other", 0};
    std::int64_t msgs = 0;
    for (const auto& e : inner) {
        if (e.counter == it->second.second) msgs += e.counted;
    }
    return {it->second.first, msgs};
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
        if (cmd == "EVALSHA" || cmd == "FCALL" || cmd == "FCALL_RO" || cmd == "EVALSHA_RO") {
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
            InnerEntry entry{name, e[2].integer, {}, 0};
            if (name == "hincrby" && args.size() == 4) {
                entry.counter = args[2].str;
                entry.counted = std::stoll(args[3].str);
            }
            group.push_back(entry);
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
