// mode latency: messages sent at a steady 200/s with delays uniform over 0..5 s, consumed by a
// Consumer with default options; how late each one reaches its handler.
//   quiet: nothing else talks to Redis.  busy: another connection keeps Redis busy with
//   pipelined SETs.
// Two clocks: Redis (Delivery::delivered_at() - due(): when the fetch script ran), and local
// (handler start minus the due instant moved to the local clock by the measured offset).

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "modes.hpp"
#include "redis/connection.hpp"

namespace delayq::bench {
namespace {

using namespace std::chrono_literals;

struct Sample {
    std::int64_t due_ms;
    std::int64_t delivered_at_ms;
    std::int64_t handler_local_us;
};

// Keeps Redis busy from its own connection: SETs of a 16-byte value over 1000 keys, 16 per
// round trip, until stopped.
class BusyLoad {
  public:
    explicit BusyLoad(const Endpoint& e) : endpoint_(e) {
        thread_ = std::thread([this] { run(); });
    }
    ~BusyLoad() { stop(); }
    BusyLoad(const BusyLoad&) = delete;
    BusyLoad& operator=(const BusyLoad&) = delete;

    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    std::uint64_t ops() const { return ops_; }

  private:
    // The library's connection (authentication, pipelining); the load ends with it if it
    // fails, which the measurement's busy_ops_per_s shows.
    void run() {
        try {
            detail::Connection c(endpoint_, detail::Timeouts{});
            constexpr int kDepth = 16;
            std::uint64_t k = 0;
            while (!stop_) {
                for (int i = 0; i < kDepth; ++i, ++k) {
                    const std::string key = "bench:busy:" + std::to_string(k % 1000);
                    const std::array<std::string_view, 3> argv = {"SET", key, "0123456789abcdef"};
                    c.append(argv);
                }
                for (int i = 0; i < kDepth; ++i) c.read();
                ops_ += kDepth;
            }
        } catch (const Error&) {
        }
    }

    Endpoint endpoint_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> ops_{0};
    std::thread thread_;
};

Json distribution(std::vector<double> v, bool with_min) {
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    Json out{{"p50", percentile_sorted(v, 50)},
             {"p90", percentile_sorted(v, 90)},
             {"p99", percentile_sorted(v, 99)},
             {"max", v.empty() ? 0.0 : v.back()},
             {"mean", v.empty() ? 0.0 : sum / static_cast<double>(v.size())}};
    if (with_min) out["min"] = v.empty() ? 0.0 : v.front();
    return out;
}

Json measure_latency(Context& ctx, bool busy, std::size_t n, double rate, int max_delay_ms,
                     int run) {
    Probe& probe = ctx.probe();
    const std::string queue = ctx.fresh_queue("latency");
    const ClockOffset off = measure_clock_offset(probe);

    std::mutex mutex;
    std::vector<Sample> samples;
    samples.reserve(n);
    std::atomic<std::size_t> delivered{0};

    std::unique_ptr<BusyLoad> load;
    if (busy) load = std::make_unique<BusyLoad>(detail::parse_url(ctx.url()));

    Client client(ctx.url(), {.engine = ctx.settings().engine});
    Consumer consumer(
        client.leases(queue),
        [&](const Delivery& d) -> Outcome {
            const std::int64_t now = local_now_us();
            {
                std::lock_guard lock(mutex);
                samples.push_back(Sample{d.due().time_since_epoch().count(),
                                         d.delivered_at().time_since_epoch().count(), now});
            }
            delivered.fetch_add(1);
            return Ack{};
        },
        ConsumerOptions{});
    consumer.start();
    std::this_thread::sleep_for(50ms);

    Window window(probe);
    window.start();
    const std::uint64_t ops_before = load ? load->ops() : 0;
    {
        Client producer(ctx.url(), {.engine = ctx.settings().engine});
        Queue q = producer.queue(queue);
        std::mt19937 rng(static_cast<std::uint32_t>(1234 + run));
        std::uniform_int_distribution<int> delay(0, max_delay_ms);
        const auto period = std::chrono::duration<double>(1.0 / rate);
        const auto t0 = SteadyClock::now();
        const std::string payload = payload16();
        for (std::size_t i = 0; i < n; ++i) {
            std::this_thread::sleep_until(t0 + std::chrono::duration_cast<SteadyClock::duration>(
                                                   period * static_cast<double>(i)));
            q.send(payload, SendOptions{.delay = Duration(delay(rng))});
        }
    }
    const auto deadline = SteadyClock::now() + std::chrono::milliseconds(max_delay_ms) + 10s;
    while (delivered.load() < n && SteadyClock::now() < deadline) std::this_thread::sleep_for(2ms);
    window.stop();
    const double busy_ops =
        load ? static_cast<double>(load->ops() - ops_before) / window.wall_s() : 0.0;
    consumer.stop();
    consumer.wait();
    if (load) load->stop();
    probe.drop_queue(queue);
    if (busy) {
        std::vector<std::string> del = {"UNLINK"};
        for (int k = 0; k < 1000; ++k) del.push_back("bench:busy:" + std::to_string(k));
        probe.command(del);
    }

    std::vector<double> redis_ms, local_ms;
    std::int64_t early = 0, local_early = 0;
    std::ostringstream data;
    const double tolerance_ms = static_cast<double>(off.uncertainty_us) / 1000.0;
    {
        std::lock_guard lock(mutex);
        for (const auto& s : samples) {
            const double late = static_cast<double>(s.delivered_at_ms - s.due_ms);
            const double due_local_us =
                static_cast<double>(s.due_ms) * 1000.0 - static_cast<double>(off.offset_us);
            const double local_late =
                (static_cast<double>(s.handler_local_us) - due_local_us) / 1000.0;
            redis_ms.push_back(late);
            local_ms.push_back(local_late);
            if (s.delivered_at_ms < s.due_ms) ++early;
            if (local_late < -tolerance_ms) ++local_early;
            data << late << ' ' << local_late << '\n';
        }
    }
    write_data(ctx, std::string("latency_") + (busy ? "busy" : "quiet") + ".dat", data.str(),
               run > 0);

    Json out;
    out["n"] = n;
    out["rate_per_s"] = rate;
    out["max_delay_ms"] = max_delay_ms;
    out["delivered"] = redis_ms.size();
    out["lateness_ms"] = distribution(redis_ms, false);
    out["local_lateness_ms"] = distribution(local_ms, true);
    out["early_count"] = early;
    out["local_early_count"] = local_early;
    out["complete"] = redis_ms.size() == n;
    // Fetches per message: TIME is read by each send (n) and each fetch (and each extend).
    out["fetches_per_msg"] =
        static_cast<double>(window.cmd("time").calls - static_cast<std::int64_t>(n)) /
        static_cast<double>(n);
    out["wake_signals"] = window.cmd("spublish").calls;
    out["redis_cpu_util"] = window.redis_cpu_s() / window.wall_s();
    if (busy) out["busy_ops_per_s"] = busy_ops;
    out["clock_offset_us"] = off.offset_us;
    out["clock_offset_uncertainty_us"] = off.uncertainty_us;
    return out;
}

}  // namespace

void run_latency(Context& ctx) {
    const Settings& s = ctx.settings();
    const std::size_t n = ctx.n_or(4'000, 60);
    const int max_delay_ms = ctx.quick() ? 300 : 5000;
    warm_up(ctx);
    for (bool busy : {false, true}) {
        std::vector<Json> runs;
        for (int r = 0; r < s.runs; ++r) {
            note(std::string("latency ") + (busy ? "busy" : "quiet") + " run " +
                 std::to_string(r + 1));
            runs.push_back(measure_latency(ctx, busy, n, 200.0, max_delay_ms, r));
        }
        Json line{{"mode", "latency"}, {"variant", busy ? "busy" : "quiet"}};
        line.update(median_of_runs(runs, "lateness_ms.p99"));
        // A safety property: every run counts, not the median run.
        for (const char* key : {"early_count", "local_early_count"}) {
            std::int64_t total = 0;
            for (const auto& r : runs) total += r[key].get<std::int64_t>();
            line[key] = total;
        }
        std::vector<Target> targets = {{"lateness_ms.p99", false, 2.0},
                                       {"early_count", false, 0.0}};
        if (!busy) {
            targets.insert(targets.begin(), {"lateness_ms.p50", false, 1.0});
            targets.push_back({"lateness_ms.max", false, 10.0});
        }
        apply_targets(line, targets);
        emit(line);
    }
}

}  // namespace delayq::bench
