// Measured intervals: wall time, Redis CPU, commands and memory, this process's CPU, and the
// machine's other load.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "harness.hpp"

namespace delayq::bench {
namespace {

// The commands the scripts run (docs/design.md, "least privilege"), as commandstats names.
bool is_script_command(const std::string& name) {
    static constexpr const char* kNames[] = {
        "time",   "incrby",        "set",     "hsetnx",  "hget",   "hmget",
        "hset",   "hdel",          "hincrby", "hgetall", "zadd",   "zrem",
        "zrange", "zrangebyscore", "zscore",  "zcard",   "zcount", "spublish"};
    return std::any_of(std::begin(kNames), std::end(kNames),
                       [&](const char* n) { return name == n; });
}

}  // namespace

std::int64_t local_now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               SystemClock::now().time_since_epoch())
        .count();
}

double process_cpu_s() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto secs = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    return secs(u.ru_utime) + secs(u.ru_stime);
}

MachineCpu machine_cpu() {
    std::ifstream f("/proc/stat");
    std::string cpu;
    double v[10] = {};
    f >> cpu;
    for (double& x : v) f >> x;
    const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
    // user nice system idle iowait irq softirq steal guest guest_nice
    return MachineCpu{(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz, v[7] / hz};
}

double load_average_1m() {
    std::ifstream f("/proc/loadavg");
    double one = 0;
    f >> one;
    return one;
}

std::int64_t process_context_switches() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::int64_t>(u.ru_nvcsw) + static_cast<std::int64_t>(u.ru_nivcsw);
}

// ---- Window -------------------------------------------------------------------------------

void Window::start() {
    before_ = probe_.snapshot();
    probe_before_ = probe_.commands_sent();
    client_before_ = process_cpu_s();
    switches_before_ = process_context_switches();
    machine_before_ = machine_cpu();
    t0_ = SteadyClock::now();
}

void Window::stop() {
    t1_ = SteadyClock::now();
    client_after_ = process_cpu_s();
    switches_after_ = process_context_switches();
    machine_after_ = machine_cpu();
    after_ = probe_.snapshot();
    probe_after_ = probe_.commands_sent();
}

double Window::wall_s() const { return std::chrono::duration<double>(t1_ - t0_).count(); }

double Window::other_cpu_util() const {
    const double wall = wall_s();
    if (wall <= 0) return 0;
    const double busy = machine_after_.busy_s - machine_before_.busy_s;
    return std::max(0.0, busy - redis_cpu_s() - client_cpu_s()) / wall;
}

std::int64_t Window::commands() const {
    return after_.commands - before_.commands -
           static_cast<std::int64_t>(probe_after_ - probe_before_);
}

CmdStat Window::cmd(const std::string& name) const {
    CmdStat out;
    if (auto a = after_.cmdstats.find(name); a != after_.cmdstats.end()) out = a->second;
    if (auto b = before_.cmdstats.find(name); b != before_.cmdstats.end()) {
        out.calls -= b->second.calls;
        out.usec -= b->second.usec;
    }
    return out;
}

CmdStat Window::operations() const {
    CmdStat out;
    for (const char* name : {"fcall", "fcall_ro", "evalsha", "evalsha_ro"}) {
        const CmdStat c = cmd(name);
        out.calls += c.calls;
        out.usec += c.usec;
    }
    return out;
}

std::map<std::string, CmdStat> Window::cmdstats() const {
    std::map<std::string, CmdStat> out;
    for (const auto& [name, st] : after_.cmdstats) {
        if (name == "info") continue;
        CmdStat d = cmd(name);
        if (d.calls > 0) out[name] = d;
    }
    return out;
}

void Window::add_redis_fields(Json& out, double msgs, bool with_memory) const {
    const double wall = wall_s();
    out["redis_cpu_us_per_msg"] = redis_cpu_s() * 1e6 / msgs;
    out["redis_cmds_per_msg"] = static_cast<double>(commands()) / msgs;
    if (with_memory) out["redis_mem_bytes_per_msg"] = static_cast<double>(memory_delta()) / msgs;
    out["redis_cpu_util"] = wall > 0 ? redis_cpu_s() / wall : 0.0;
    out["client_cpu_us_per_msg"] = client_cpu_s() * 1e6 / msgs;
    out["client_cpu_util"] = wall > 0 ? client_cpu_s() / wall : 0.0;
    out["client_switches_per_msg"] = static_cast<double>(switches_after_ - switches_before_) / msgs;
    // Where the operations' time goes (commandstats: wall-clock usec inside each command): the
    // commands the scripts run, and Lua itself (the rest of FCALL or EVALSHA; the field keeps
    // its name from before function mode).
    double inner_usec = 0;
    Json breakdown = Json::object();
    for (const auto& [name, st] : cmdstats()) {
        breakdown[name] = Json{{"calls_per_msg", static_cast<double>(st.calls) / msgs},
                               {"usec_per_msg", static_cast<double>(st.usec) / msgs}};
        if (is_script_command(name)) inner_usec += static_cast<double>(st.usec);
    }
    const auto evalsha_usec = static_cast<double>(operations().usec);
    out["redis_evalsha_usec_per_msg"] = evalsha_usec / msgs;
    out["redis_script_cmds_usec_per_msg"] = inner_usec / msgs;
    out["redis_lua_usec_per_msg"] = (evalsha_usec - inner_usec) / msgs;
    // Other processes' load: throughput (and commandstats' wall-clock usec) suffer from it, the
    // CPU-time figures much less.
    out["other_cpu_util"] = other_cpu_util();
    out["steal_util"] = wall > 0 ? (machine_after_.steal_s - machine_before_.steal_s) / wall : 0.0;
    out["cmdstats"] = std::move(breakdown);
}

// ---- Context ------------------------------------------------------------------------------

std::size_t Context::n_or(std::size_t full, std::size_t quick_n) const {
    if (settings_.n > 0) return settings_.n;
    return settings_.quick ? quick_n : full;
}

std::string Context::fresh_queue(std::string_view what) {
    return "bench-" + std::to_string(::getpid()) + "-" + std::string(what) + "-" +
           std::to_string(++queue_counter_);
}

}  // namespace delayq::bench
