#pragma once

// Shared pieces of delayq-bench: the redis-server it starts and a raw hiredis probe for
// Redis-side figures (redis.cpp), measured windows of INFO deltas and CPU (window.cpp), JSON
// results and medians (results.cpp), and producer threads (threads.cpp).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/delayq.hpp"
#include "redis/url.hpp"
#include "support/redis_server.hpp"

struct redisContext;

namespace delayq::bench {

using Json = nlohmann::ordered_json;
using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

// Where the probe connects: the library's own endpoint and URL parser (detail::parse_url).
using Endpoint = detail::Endpoint;

// A reply, flattened: the tests' type, so that one converter from hiredis serves both.
using RawReply = test::RawReply;

struct CmdStat {
    std::int64_t calls = 0;
    std::int64_t usec = 0;
};

// What one INFO call tells about Redis's cost so far.
struct RedisSnapshot {
    double cpu_s = 0;  // used_cpu_sys + used_cpu_user
    std::int64_t commands = 0;
    std::int64_t used_memory = 0;
    std::map<std::string, CmdStat> cmdstats;
};

// A plain synchronous connection to Redis for measurements. It counts the commands it sends, so
// that they can be taken out of the total_commands_processed deltas.
class Probe {
  public:
    explicit Probe(const Endpoint& endpoint);
    ~Probe();
    Probe(const Probe&) = delete;
    Probe& operator=(const Probe&) = delete;

    RawReply command(const std::vector<std::string>& args);
    std::string info(const std::string& sections);
    RedisSnapshot snapshot();
    std::int64_t time_us();
    std::uint64_t commands_sent() const { return sent_; }
    std::int64_t used_memory();
    // Waits (up to 2 s) until Redis has seen closed connections go: connected_clients <= n.
    void wait_clients_at_most(std::int64_t n);
    std::int64_t connected_clients();
    std::string redis_version();

    // Removes every key of a queue (UNLINK) and waits until the lazy-free thread is done, so
    // that the next used_memory baseline is clean.
    void drop_queue(const std::string& queue);
    void wait_lazyfree();
    // Drives the incremental rehash of a queue's msg hash and pending zset to its end. Redis
    // rehashes a hash's or zset's own table one bucket per access (never from serverCron), so
    // after a large load every command meets both tables for a while; this issues cheap lookups
    // (HEXISTS, ZSCORE of absent members), pipelined, until DEBUG HTSTATS-KEY reports no
    // rehashing target. Returns the lookups issued.
    std::uint64_t finish_rehash(const std::string& queue);

  private:
    struct ContextDeleter {
        void operator()(redisContext* ctx) const;
    };
    std::unique_ptr<redisContext, ContextDeleter> ctx_;
    std::uint64_t sent_ = 0;
};

// Redis TIME minus the local system clock, from the sample with the shortest round trip.
struct ClockOffset {
    std::int64_t offset_us = 0;       // redis - local
    std::int64_t uncertainty_us = 0;  // half the best round trip
};
ClockOffset measure_clock_offset(Probe& probe);

std::int64_t local_now_us();  // system clock, unix microseconds

// CPU time of this process (all threads), seconds.
double process_cpu_s();
// Context switches of this process (all threads): voluntary (blocking) plus involuntary.
std::int64_t process_context_switches();

// Machine-wide CPU from /proc/stat, seconds: busy (everything but idle and iowait) and steal.
struct MachineCpu {
    double busy_s = 0;
    double steal_s = 0;
};
MachineCpu machine_cpu();
// The 1-minute load average (/proc/loadavg): the machine is shared, and long runs say how busy.
double load_average_1m();

// A measured interval: wall time, Redis CPU, commands and memory, and this process's CPU.
class Window {
  public:
    explicit Window(Probe& probe) : probe_(probe) {}
    void start();
    void stop();

    double wall_s() const;
    double redis_cpu_s() const { return after_.cpu_s - before_.cpu_s; }
    double client_cpu_s() const { return client_after_ - client_before_; }
    // Commands other clients sent (the probe's own taken out).
    std::int64_t commands() const;
    std::int64_t memory_delta() const {
        return after_.used_memory - (mem_baseline_ >= 0 ? mem_baseline_ : before_.used_memory);
    }
    // used_memory to compare the end with, taken earlier than start() (e.g. before the
    // producers' connections exist, since the end is measured after they are closed).
    void set_memory_baseline(std::int64_t used_memory) { mem_baseline_ = used_memory; }
    // Cores kept busy by other processes on this machine during the window (not Redis, not us).
    double other_cpu_util() const;
    CmdStat cmd(const std::string& name) const;
    // The operations' calls, however they ran: FCALL (function mode) and EVALSHA (scripts), and
    // their _RO forms.
    CmdStat operations() const;
    // Per-command deltas, without the probe's INFO.
    std::map<std::string, CmdStat> cmdstats() const;

    // The usual Redis-side fields for `msgs` messages: CPU and commands per message, CPU use,
    // and the per-command breakdown.
    void add_redis_fields(Json& out, double msgs, bool with_memory) const;

  private:
    Probe& probe_;
    RedisSnapshot before_, after_;
    SteadyClock::time_point t0_, t1_;
    double client_before_ = 0, client_after_ = 0;
    std::int64_t switches_before_ = 0, switches_after_ = 0;
    std::uint64_t probe_before_ = 0, probe_after_ = 0;
    MachineCpu machine_before_, machine_after_;
    std::int64_t mem_baseline_ = -1;
};

// Everything a mode needs.
struct Settings {
    std::vector<std::string> modes;
    std::size_t n = 0;  // 0: each mode's default
    int runs = 1;
    bool quick = false;
    std::string redis_url;
    // --tls: our own redis-server speaks TLS only and every Client uses rediss:// (the probe
    // its unix socket). With --redis rediss://..., --tls-ca names the CA.
    bool tls = false;
    ClientOptions client_options{};
    // Also in client_options; the modes without TLS make their clients with this alone.
    ScriptEngine engine = ScriptEngine::kAuto;
    std::vector<std::size_t> sizes;
    std::size_t producers = 64;       // single enqueue
    std::size_t in_flight = 64;       // single enqueue through send_async, from one thread
    std::size_t batch_producers = 2;  // batch enqueue
    std::size_t batch = 1000;
    std::size_t prefetch = 0;  // e2e: 0 with max_batch 0 means sweep
    std::size_t max_batch = 0;
    double idle_seconds = 20;
    bool attribute = false;     // SLOWLOG-based per-script attribution
    bool settle_rehash = true;  // backlog: finish the grown tables' rehash before measuring
    // backlog: how far ahead the backlog is due; a year by default, which puts it in the cold
    // hash (design.md); under an hour keeps it among the records every send and fetch touch.
    std::chrono::seconds backlog_delay = std::chrono::hours(24 * 365);
    std::string data_dir;  // raw samples for bench/plot.sh
    // profile: a shell command run before and after each phase, "{}" replaced by the phase's
    // name (e.g. "callgrind_control --dump={} PID" for a redis-server under callgrind).
    std::string phase_hook;
    // precision: seconds of sending per run, the spread of due times after each send, and the
    // rates (msgs/s) to run at instead of 10/50/80 % of the measured maximum e2e rate.
    double precision_seconds = 60;
    double precision_spread_s = 10;
    int precision_tick_ms = 1;
    std::vector<double> precision_rates;
    // precision: each message through send_async, which the library groups into calls (after
    // waiting up to the queue's send_linger for company), instead of a send_batch per tick.
    bool precision_send_async = false;
    // precision: Consumer objects of the queue on one Client, sharing the concurrency
    std::size_t precision_consumers = 1;
    std::optional<Duration> send_linger;  // QueueOptions::send_linger; unset: the default
};

class Context {
  public:
    Context(Settings settings, std::string url, Probe& probe)
        : settings_(std::move(settings)), url_(std::move(url)), probe_(probe) {}

    const Settings& settings() const { return settings_; }
    const std::string& url() const { return url_; }
    Probe& probe() { return probe_; }
    bool quick() const { return settings_.quick; }
    std::size_t n_or(std::size_t full, std::size_t quick) const;
    // A queue name not used before in this process.
    std::string fresh_queue(std::string_view what);

    // Rates seen so far, to aim the common due time of an e2e run.
    double batch_rate = 100'000;
    double single_rate = 30'000;
    // The best c64 consumer settings found by the e2e sweep (0: none yet), used by backlog.
    std::optional<std::size_t> best_prefetch{};
    std::size_t best_max_batch = 0;

  private:
    Settings settings_;
    std::string url_;
    Probe& probe_;
    int queue_counter_ = 0;
};

// Repeats a run and reduces the runs to one line: the median of every number (recursively), the
// first value of everything else, and "<headline>_runs" with every run's headline figure (and
// "redis_cpu_us_per_msg_runs" where the runs have that figure).
Json median_of_runs(const std::vector<Json>& runs, const std::string& headline);

// Appends "targets" (field -> requirement text) and "targets_met".
struct Target {
    std::string field;  // a top-level field or "object.field"
    bool at_least;      // >= limit, else <= limit
    double limit;
};
void apply_targets(Json& line, const std::vector<Target>& targets);

// Prints a line to stdout (one JSON object) and keeps it for the closing table.
void emit(const Json& line);
const std::vector<Json>& emitted();

// Progress for humans, on stderr.
void note(const std::string& text);

double median(std::vector<double> v);
// Nearest-rank percentile of sorted values, p in [0, 100].
double percentile_sorted(const std::vector<double>& sorted, double p);
double tidy(double x);  // rounded for printing

// A 16-byte payload.
std::string payload16();

// Runs fn(i) on `threads` threads, all released together; returns the wall seconds between the
// release and the last thread's end. `ready` runs after all threads are set up and before the
// release (e.g. to start a Window).
double run_threads(std::size_t threads, const std::function<void(std::size_t)>& setup,
                   const std::function<void(std::size_t)>& body, const std::function<void()>& ready,
                   const std::function<void()>& done);

// Sends n messages to `queue_name` in batches, from `producers` threads, each with its own
// Client; every message gets `options`. Returns the wall seconds of the sending.
double send_batches(const std::string& url, const ClientOptions& client_options,
                    const std::string& queue_name, std::size_t n, std::size_t batch,
                    std::size_t producers, const SendOptions& options,
                    std::chrono::milliseconds spread = {}, const std::function<void()>& ready = {},
                    const std::function<void()>& done = {});

}  // namespace delayq::bench
