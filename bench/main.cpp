// delayq-bench: throughput, latency, memory and idle cost of delayq on a real Redis.
// Prints one JSON object per line on stdout, and a readable table on stderr at the end.

#include <unistd.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "json_path.hpp"
#include "modes.hpp"
#include "support/redis_server.hpp"
#include "support/test_certificates.hpp"

namespace delayq::bench {
namespace {

const char* const kUsage = R"(usage: delayq-bench [options]
Measures delayq on a redis-server of its own (or --redis URL). Prints one JSON object per line
on stdout and a readable table on stderr at the end; progress goes to stderr.
  --mode LIST          comma-separated: enqueue,e2e,latency,memory,backlog,idle,profile,
                       precision (default: all of them), and cluster (not in the default)
  --cluster            --mode cluster: a 3-primary Redis Cluster of its own against the
                       standalone server (bench/cluster.cpp)
  --n N                messages per run (default: per mode)
  --runs R             repeat each measurement R times and report the median (default 1)
  --quick              tiny sizes: a smoke test of a few seconds
  --redis URL          use this server instead of starting one (keys are removed after use)
  --tls                our own redis-server speaks TLS only (certificates made with openssl),
                       and the library connects with rediss://; modes enqueue and e2e
  --tls-ca FILE        with --redis rediss://...: the CA of the server's certificate
  --engine E           auto (default: the function library, FCALL), functions, or scripts
                       (EVALSHA, as before it): compares the two in one build
  --sizes LIST         backlog sizes, e.g. 0,1M,10M (k and M suffixes)
  --producers N        single-enqueue producer threads (default 64)
  --in-flight N        single_async enqueue: send_async calls outstanding from its one
                       producer thread (default 64)
  --batch-producers N  batch-enqueue producer threads (default 2)
  --batch N            messages per send_batch (default 1000)
  --prefetch N, --max-batch N
                       e2e/backlog consumer settings (default: e2e sweeps them)
  --idle-seconds S     idle measurement window (default 20)
  --attribute          e2e, precision: one more run (per rate) with SLOWLOG on, split per
                       script and command
  --no-rehash-settle   backlog: measure right after loading, while Redis still rehashes the
                       grown tables (default: finish the rehash first, the steady state)
  --backlog-delay S    backlog: seconds until the backlog is due (default a year: the cold
                       hash; 1800 measures a backlog due within the hour, kept hot)
  --duration S         precision: seconds of steady sending per run (default 60; --quick: 2)
  --spread S           precision: due times uniform over 0..S seconds after each send
                       (default 10; --quick: 1)
  --tick-ms N          precision: producers send every N ms what the schedule owes (default 1)
  --send-async         precision: producers hand each message to send_async, which the library
                       groups into calls, instead of one send_batch per tick
  --consumers N        precision: N Consumer objects of the queue on one Client, each with
                       1/N of the concurrency (default 1), as a process with a consumer per
                       thread or per module runs
  --send-linger MS     precision: QueueOptions::send_linger of the producers' queues (default:
                       the library's)
  --rate LIST          precision: msgs/s to run at, e.g. 20k,100k (default: 10, 50 and 80 %
                       of the maximum e2e rate, measured first; --quick: of at most 5000)
  --data-dir DIR       write latency samples and backlog rates there for bench/plot.sh
  --phase-hook CMD     profile: run CMD before and after each phase, with {} (or, without
                       {}, a last argument) replaced by the phase's name, e.g.
                       "callgrind_control --dump={} PID" for a redis-server under callgrind
)";

std::size_t parse_count(const std::string& text) {
    std::size_t pos = 0;
    double v = std::stod(text, &pos);
    std::string suffix = text.substr(pos);
    if (suffix == "k" || suffix == "K") v *= 1e3;
    if (suffix == "M" || suffix == "m") v *= 1e6;
    if (v < 0) throw std::invalid_argument("negative count: " + text);
    return static_cast<std::size_t>(v);
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

std::optional<Settings> parse(int argc, char** argv) {
    Settings s;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
            return args[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return std::nullopt;
        } else if (a == "--mode") {
            s.modes = split(value());
        } else if (a == "--n") {
            s.n = parse_count(value());
        } else if (a == "--runs") {
            s.runs = std::max(1, std::stoi(value()));
        } else if (a == "--cluster") {
            s.modes = {"cluster"};
        } else if (a == "--quick") {
            s.quick = true;
        } else if (a == "--redis") {
            s.redis_url = value();
        } else if (a == "--tls") {
            s.tls = true;
        } else if (a == "--tls-ca") {
            s.client_options.tls.ca_file = value();
        } else if (a == "--engine") {
            const auto e = parse_script_engine(value());
            if (!e) throw std::invalid_argument("--engine must be auto, functions or scripts");
            s.engine = *e;
            s.client_options.engine = s.engine;
        } else if (a == "--sizes") {
            for (const auto& x : split(value())) s.sizes.push_back(parse_count(x));
        } else if (a == "--producers") {
            s.producers = std::max<std::size_t>(1, parse_count(value()));
        } else if (a == "--in-flight") {
            s.in_flight = std::max<std::size_t>(1, parse_count(value()));
        } else if (a == "--batch-producers") {
            s.batch_producers = std::max<std::size_t>(1, parse_count(value()));
        } else if (a == "--batch") {
            s.batch = std::clamp<std::size_t>(parse_count(value()), 1, 1000);
        } else if (a == "--prefetch") {
            s.prefetch = parse_count(value());
        } else if (a == "--max-batch") {
            s.max_batch = std::clamp<std::size_t>(parse_count(value()), 1, 1000);
        } else if (a == "--idle-seconds") {
            s.idle_seconds = std::stod(value());
        } else if (a == "--attribute") {
            s.attribute = true;
        } else if (a == "--no-rehash-settle") {
            s.settle_rehash = false;
        } else if (a == "--backlog-delay") {
            s.backlog_delay = std::chrono::seconds(std::max<std::size_t>(1, parse_count(value())));
        } else if (a == "--duration") {
            s.precision_seconds = std::max(0.1, std::stod(value()));
        } else if (a == "--spread") {
            s.precision_spread_s = std::max(0.0, std::stod(value()));
        } else if (a == "--send-async") {
            s.precision_send_async = true;
        } else if (a == "--consumers") {
            s.precision_consumers = std::clamp<std::size_t>(parse_count(value()), 1, 64);
        } else if (a == "--send-linger") {
            s.send_linger = std::chrono::milliseconds(std::stoi(value()));
        } else if (a == "--tick-ms") {
            s.precision_tick_ms = std::clamp(std::stoi(value()), 1, 1000);
        } else if (a == "--rate") {
            for (const auto& x : split(value())) {
                const auto r = static_cast<double>(parse_count(x));
                if (r <= 0) throw std::invalid_argument("--rate needs rates above 0");
                s.precision_rates.push_back(r);
            }
        } else if (a == "--phase-hook") {
            s.phase_hook = value();
        } else if (a == "--data-dir") {
            s.data_dir = value();
        } else {
            throw std::invalid_argument("unknown option " + a + "\n" + kUsage);
        }
    }
    if (s.modes.empty() || (s.modes.size() == 1 && s.modes[0] == "all")) {
        s.modes = {"enqueue", "e2e",  "latency", "memory",
                   "backlog", "idle", "profile", "precision"};
    }
    return s;
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
    }
    return "unknown";
}

// ---- the closing table ----------------------------------------------------------------------

struct Column {
    const char* path;
    const char* label;
};

const Column kColumns[] = {
    {"backlog", "backlog"},
    {"n", "n"},
    {"producers", "prod"},
    {"batch", "batch"},
    {"concurrency", "conc"},
    {"prefetch", "prefetch"},
    {"max_batch", "max_batch"},
    {"msgs_per_s", "msgs/s"},
    {"ratio_vs_smallest", "ratio"},
    {"paired_empty_msgs_per_s", "empty_msgs/s"},
    {"ratio_vs_paired_empty", "ratio_paired"},
    {"first_due_to_first_delivery_ms", "first_ms"},
    {"redis_cpu_us_per_msg", "redis_us/msg"},
    {"redis_cmds_per_msg", "cmds/msg"},
    {"redis_mem_bytes_per_msg", "mem_B/msg"},
    {"bytes_per_msg", "B/msg"},
    {"msgs_per_fetch", "msgs/fetch"},
    {"acks_per_ack_call", "acks/call"},
    {"lateness_ms.p50", "p50_ms"},
    {"lateness_ms.p90", "p90_ms"},
    {"lateness_ms.p99", "p99_ms"},
    {"lateness_ms.max", "max_ms"},
    {"local_lateness_ms.p50", "local_p50"},
    {"local_lateness_ms.p99", "local_p99"},
    {"local_lateness_ms.max", "local_max"},
    {"rate_per_s", "rate/s"},
    {"send_msgs_per_s", "sent/s"},
    {"early_count", "early"},
    {"cmds_per_s_per_consumer", "cmds/s/consumer"},
    {"redis_cpu_util", "redis_cpu"},
    {"client_cpu_util", "client_cpu"},
    {"targets_met", "target"},
};

std::string cell(const Json& v) {
    if (v.is_boolean()) return v.get<bool>() ? "met" : "MISSED";
    if (v.is_number_float()) {
        std::ostringstream s;
        s << tidy(v.get<double>());
        return s.str();
    }
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

void print_table(std::ostream& out) {
    std::vector<std::string> modes;
    for (const auto& line : emitted()) {
        const auto m = line.value("mode", "");
        if (m == "env" || m == "attribution") continue;
        if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
    }
    for (const auto& mode : modes) {
        std::vector<const Json*> rows;
        for (const auto& line : emitted()) {
            if (line.value("mode", "") == mode) rows.push_back(&line);
        }
        std::vector<const Column*> cols;
        for (const auto& c : kColumns) {
            for (const Json* r : rows) {
                if (json_path(*r, c.path) != nullptr) {
                    cols.push_back(&c);
                    break;
                }
            }
        }
        std::vector<std::vector<std::string>> cells;
        std::vector<std::string> header = {"mode", "variant"};
        for (const Column* c : cols) header.push_back(c->label);
        cells.push_back(header);
        for (const Json* r : rows) {
            std::vector<std::string> row = {mode, r->value("variant", "")};
            for (const Column* c : cols) {
                const Json* v = json_path(*r, c->path);
                row.push_back(v != nullptr ? cell(*v) : "-");
            }
            cells.push_back(row);
        }
        std::vector<std::size_t> width(header.size(), 0);
        for (const auto& row : cells) {
            for (std::size_t i = 0; i < row.size(); ++i)
                width[i] = std::max(width[i], row[i].size());
        }
        out << '\n';
        for (const auto& row : cells) {
            for (std::size_t i = 0; i < row.size(); ++i) {
                out << std::setw(static_cast<int>(width[i])) << (i < 2 ? std::left : std::right)
                    << row[i] << (i + 1 < row.size() ? "  " : "\n");
            }
        }
    }
}

int run(Settings settings) {
    // Without --redis: a redis-server of our own (free loopback port, temporary directory, no
    // persistence, default hz), started by the same launcher the tests use.
    std::unique_ptr<test::TestCertificates> certificates;
    std::unique_ptr<test::RedisServer> server;
    std::string url = settings.redis_url;
    std::string probe_url = url;
    if (url.empty()) {
        test::RedisServerOptions options;
        if (settings.tls) {
            certificates = std::make_unique<test::TestCertificates>();
            options.tls = test::RedisServerTls{.cert_file = certificates->server_cert(),
                                               .key_file = certificates->server_key(),
                                               .ca_file = certificates->ca()};
            settings.client_options.tls.ca_file = certificates->ca();
        }
        server = std::make_unique<test::RedisServer>(options);
        url = server->url();
        // The probe (plain hiredis) reads a TLS-only server through its unix socket.
        probe_url = settings.tls ? "unix://" + server->unix_socket_path() : url;
        note("started redis-server on " + url);
    }
    Probe probe(detail::parse_url(probe_url));
    Context ctx(settings, url, probe);
    emit(Json{{"mode", "env"},
              {"variant", "machine"},
              {"nproc", std::thread::hardware_concurrency()},
              {"cpu_model", cpu_model()},
              {"redis_version", probe.redis_version()},
              {"redis_pid", server ? server->pid() : 0},
              {"delayq_version", delayq::kVersion},
              {"quick", settings.quick},
              {"runs", settings.runs},
              {"tls", url.starts_with("rediss:")}});
    for (const auto& mode : settings.modes) {
        if (mode == "enqueue") {
            run_enqueue(ctx);
        } else if (mode == "e2e") {
            run_e2e(ctx);
        } else if (mode == "latency") {
            run_latency(ctx);
        } else if (mode == "memory") {
            run_memory(ctx);
        } else if (mode == "backlog") {
            run_backlog(ctx);
        } else if (mode == "idle") {
            run_idle(ctx);
        } else if (mode == "profile") {
            run_profile(ctx);
        } else if (mode == "precision") {
            run_precision(ctx);
        } else if (mode == "cluster") {
            run_cluster(ctx);
        } else {
            throw std::invalid_argument("unknown mode " + mode);
        }
    }
    print_table(std::cerr);
    return 0;
}

}  // namespace
}  // namespace delayq::bench

int main(int argc, char** argv) {
    try {
        auto settings = delayq::bench::parse(argc, argv);
        if (!settings) return 0;
        return delayq::bench::run(std::move(*settings));
    } catch (const std::exception& e) {
        std::cerr << "delayq-bench: " << e.what() << std::endl;
        return 1;
    }
}
