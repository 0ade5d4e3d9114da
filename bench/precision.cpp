// mode precision: how late deliveries are while a queue is busy (issue 16, section 6).
// Producers send at a steady rate, paced in ticks of --tick-ms (1 ms; each tick a send_batch of
// what the schedule owes by then), every message due at a delay drawn uniformly from 0..spread (10
// s); one Consumer (concurrency 64; --consumers N: N on one Client, 64/N each) acks at once. The
// rates are 10, 50 and 80 % of the maximum e2e rate measured first in the same run with the same
// consumer settings (measure_e2e_batched), or the --rate values. Lateness on two clocks, as in the
// latency mode: Redis (delivered_at - due, Delivery::lateness) and the handler's (its start on the
// local clock minus the due instant moved to the local clock by the offset to Redis TIME). The
// headline figures are over the steady window, the messages due from `spread` after the first send
// to the planned end of sending, when the queue holds a full spread of messages and producers and
// consumer both run; the "all_" figures and the early counts are over every message.

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <random>
#include <thread>

#include "histogram.hpp"
#include "modes.hpp"

namespace delayq::bench {
namespace {

using namespace std::chrono_literals;

// With --quick the rates are fractions of at most this, so that a sanitizer build on a loaded
// machine keeps up and the smoke test stays a few seconds long.
constexpr double kQuickRateCeiling = 5'000;

// What the handler records: four histograms (two clocks, steady window and all) and the counts.
struct Recorder {
    Recorder(ClockOffset off, std::int64_t steady_from_ms, std::int64_t steady_to_ms)
        : offset(off), steady_from(steady_from_ms), steady_to(steady_to_ms) {}

    void record(const Delivery& d, std::int64_t handler_local_us) {
        const std::int64_t due_ms = d.due().time_since_epoch().count();
        const std::int64_t late_ms = d.lateness().count();
        const std::int64_t local_late_us = handler_local_us - (due_ms * 1000 - offset.offset_us);
        redis_all.record(late_ms);
        local_all.record(local_late_us);
        if (due_ms >= steady_from && due_ms <= steady_to) {
            redis_steady.record(late_ms);
            local_steady.record(local_late_us);
        }
        if (late_ms < 0) early.fetch_add(1, std::memory_order_relaxed);
        if (local_late_us < -offset.uncertainty_us) local_early.fetch_add(1);
        if (d.attempt() > 1) redelivered.fetch_add(1, std::memory_order_relaxed);
        delivered.fetch_add(1, std::memory_order_release);
    }

    const ClockOffset offset;
    const std::int64_t steady_from, steady_to;  // due times, Redis clock, unix ms
    // ms on the Redis clock; µs on the local one (exact up to 100 ms, then per ms).
    Histogram redis_all{-1'000, 120'000, 1, 120'001};
    Histogram redis_steady{-1'000, 120'000, 1, 120'001};
    Histogram local_all{-10'000, 100'000, 1'000, 120'000'000};
    Histogram local_steady{-10'000, 100'000, 1'000, 120'000'000};
    std::atomic<std::uint64_t> delivered{0}, early{0}, local_early{0}, redelivered{0};
};

// What the producers did.
struct Sending {
    std::atomic<std::uint64_t> sent{0};
    std::atomic<std::uint64_t> calls{0};      // send_batch calls (ticks' sends with --send-async)
    std::atomic<std::int64_t> max_lag_us{0};  // a tick's start behind its schedule
    double wall_s = 0;
};

// Answers of send_async calls still to be checked, bounded so that a producer cannot run ahead
// of Redis by more than this many messages.
class Answers {
  public:
    void add(std::future<SendResult> f) {
        pending_.push_back(std::move(f));
        if (pending_.size() > kMaxPending) take_oldest();
    }
    ~Answers() {
        while (!pending_.empty()) take_oldest();
    }
    Answers() = default;
    Answers(const Answers&) = delete;
    Answers& operator=(const Answers&) = delete;

  private:
    static constexpr std::size_t kMaxPending = 10'000;
    void take_oldest() {
        pending_.front().get();  // a failed send throws: the run is not valid
        pending_.pop_front();
    }
    std::deque<std::future<SendResult>> pending_;
};

// One producer's share: rate msgs/s for `seconds`, in ticks of tick_ms; each tick sends what the
// schedule owes by its end, in calls of at most 1000 (or with `async`, one send_async each). A
// producer whose calls overran skips the ticks it missed, so the next call sends all it owes: it
// catches up with larger batches, as an application with a queue of messages to hand over would,
// until the run's time is up.
void produce(Queue& q, double rate, double seconds, int spread_ms, int tick_ms, bool async,
             std::uint32_t seed, Sending& out) {
    Answers answers;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> delay(0, spread_ms);
    std::vector<Message> batch;
    const auto t0 = SteadyClock::now();
    const std::chrono::milliseconds period(tick_ms);
    const auto total = static_cast<std::uint64_t>(rate * seconds);
    std::uint64_t sent = 0;
    // The run lasts `seconds` whatever was sent: producers that cannot hold the rate send less
    // (send_rate_fraction) instead of stretching the run.
    const auto end = t0 + std::chrono::duration_cast<SteadyClock::duration>(
                              std::chrono::duration<double>(seconds));
    for (std::int64_t tick = 1; sent < total && SteadyClock::now() < end; ++tick) {
        const auto at = t0 + period * (tick - 1);
        std::this_thread::sleep_until(at);
        const auto now = SteadyClock::now();
        const auto lag = std::chrono::duration_cast<std::chrono::microseconds>(now - at).count();
        std::int64_t seen = out.max_lag_us.load();
        while (lag > seen && !out.max_lag_us.compare_exchange_weak(seen, lag)) {
        }
        tick = std::max<std::int64_t>(tick, (now - t0) / period + 1);
        const auto owed = std::min(
            total, static_cast<std::uint64_t>(rate * static_cast<double>(tick * tick_ms) / 1000.0));
        while (sent < owed) {
            const std::size_t k = std::min<std::uint64_t>(owed - sent, 1000);
            batch.resize(k);
            for (auto& m : batch) {
                m.payload = payload16();
                m.options = SendOptions{.delay = Duration(delay(rng))};
            }
            if (async) {
                for (const auto& m : batch) answers.add(q.send_async(m.payload, m.options));
            } else {
                q.send_batch(batch);
            }
            sent += k;
            out.sent.fetch_add(k, std::memory_order_relaxed);
            out.calls.fetch_add(1, std::memory_order_relaxed);
        }
    }
}

ConsumerConfig consumer_config(const Settings& s) {
    if (s.max_batch > 0) return ConsumerConfig{64, s.prefetch, s.max_batch};
    // c64 with automatic prefetch and max_batch 1000: the e2e sweep's best (docs/benchmarks.md).
    return ConsumerConfig{64, std::nullopt, 1000};
}

Json measure_precision(Context& ctx, double rate, const ConsumerConfig& cfg, int run) {
    const Settings& s = ctx.settings();
    Probe& probe = ctx.probe();
    const double seconds = ctx.quick() ? std::min(s.precision_seconds, 2.0) : s.precision_seconds;
    const int spread_ms = static_cast<int>((ctx.quick() ? 1.0 : s.precision_spread_s) * 1000);
    const std::string queue = ctx.fresh_queue("precision");
    const double load_before = load_average_1m();
    const ClockOffset off = measure_clock_offset(probe);
    const std::int64_t start_ms = probe.time_us() / 1000;
    Recorder rec(off, start_ms + spread_ms, start_ms + static_cast<std::int64_t>(seconds * 1000));

    Client client(ctx.url(), {.engine = ctx.settings().engine});
    // Several Consumers of the queue on one Client share the concurrency (and their fetches).
    const std::size_t n_consumers = s.precision_consumers;
    ConsumerOptions each = cfg.options();
    each.concurrency = std::max<std::size_t>(1, cfg.concurrency / n_consumers);
    std::vector<std::unique_ptr<Consumer>> consumers;
    for (std::size_t i = 0; i < n_consumers; ++i) {
        consumers.push_back(std::make_unique<Consumer>(
            client.leases(queue),
            [&rec](const Delivery& d) -> Outcome {
                rec.record(d, local_now_us());
                return Ack{};
            },
            each));
        consumers.back()->start();
    }

    const std::size_t producers = s.batch_producers;
    std::vector<std::unique_ptr<Client>> clients(producers);
    std::vector<std::optional<Queue>> queues(producers);
    Sending sending;
    Window window(probe);
    std::size_t ready_at_send_end = 0;
    sending.wall_s = run_threads(
        producers,
        [&](std::size_t i) {
            clients[i] = std::make_unique<Client>(ctx.url(), ClientOptions{.engine = s.engine});
            QueueOptions options;
            if (s.send_linger) options.send_linger = *s.send_linger;
            queues[i] = clients[i]->queue(queue, options);
            clients[i]->ping();
        },
        [&](std::size_t i) {
            produce(*queues[i], rate / static_cast<double>(producers), seconds, spread_ms,
                    s.precision_tick_ms, s.precision_send_async,
                    static_cast<std::uint32_t>(run * 1000 + i), sending);
        },
        [&] { window.start(); }, [&] { ready_at_send_end = client.admin(queue).stats().ready; });
    const std::uint64_t sent = sending.sent.load();
    const auto deadline = SteadyClock::now() + std::chrono::milliseconds(spread_ms) + 60s;
    while (rec.delivered.load(std::memory_order_acquire) < sent && SteadyClock::now() < deadline) {
        std::this_thread::sleep_for(2ms);
    }
    window.stop();
    for (auto& c : consumers) c->stop();
    ConsumerStats cs{};
    for (auto& c : consumers) {
        c->wait();
        const ConsumerStats one = c->stats();
        cs.fetched += one.fetched;
        cs.acked += one.acked;
        cs.leases_lost += one.leases_lost;
        cs.redis_errors += one.redis_errors;
    }
    const QueueStats qs = client.admin(queue).stats();
    const ClockOffset off_after = measure_clock_offset(probe);
    clients.clear();
    probe.drop_queue(queue);

    Json out = Json{{"consumers", n_consumers},
                    {"concurrency", each.concurrency * n_consumers},
                    {"prefetch", cfg.prefetch ? Json(*cfg.prefetch) : Json("auto")},
                    {"max_batch", cfg.max_batch}};
    out["rate_per_s"] = rate;
    out["seconds"] = seconds;
    out["spread_ms"] = spread_ms;
    out["producers"] = producers;
    out["tick_ms"] = s.precision_tick_ms;
    out["send_msgs_per_s"] = static_cast<double>(sent) / sending.wall_s;
    // Under 1: the producers could not hold the rate (Redis or the client was the limit).
    out["send_rate_fraction"] = static_cast<double>(sent) / sending.wall_s / rate;
    // With --send-async the library groups messages into calls the producers do not see.
    out["send_async"] = s.precision_send_async;
    out["msgs_per_send_call"] =
        s.precision_send_async
            ? Json(nullptr)
            : Json(static_cast<double>(sent) /
                   static_cast<double>(std::max<std::uint64_t>(1, sending.calls)));
    out["max_send_lag_ms"] = static_cast<double>(sending.max_lag_us.load()) / 1000.0;
    out["ready_at_send_end"] = ready_at_send_end;
    out["lateness_ms"] = rec.redis_steady.summary(1, false);
    out["local_lateness_ms"] = rec.local_steady.summary(1000, true);
    out["steady_count"] = rec.redis_steady.count();
    out["all_lateness_ms"] = rec.redis_all.summary(1, false);
    out["all_local_lateness_ms"] = rec.local_all.summary(1000, true);
    out["early_count"] = rec.early.load();
    out["local_early_count"] = rec.local_early.load();
    // Counts that must agree: every message sent once, delivered once, acked once.
    out["sent"] = sent;
    out["delivered"] = rec.delivered.load();
    out["redelivered"] = rec.redelivered.load();
    out["acked"] = cs.acked;
    out["queue_sent"] = qs.totals.sent;
    out["queue_delivered"] = qs.totals.delivered;
    out["queue_acked"] = qs.totals.acked;
    out["queue_left"] = qs.scheduled + qs.ready + qs.in_flight + qs.dead;
    out["leases_lost"] = cs.leases_lost;
    out["redis_errors"] = cs.redis_errors;
    out["complete"] = rec.delivered.load() == sent && cs.acked == sent && qs.totals.sent == sent;
    out["counts_agree"] = rec.delivered.load() == sent && rec.redelivered.load() == 0 &&
                          cs.acked == sent && qs.totals.sent == sent &&
                          qs.totals.delivered == sent && qs.totals.acked == sent &&
                          out["queue_left"].get<std::size_t>() == 0;
    window.add_redis_fields(out, static_cast<double>(sent), false);
    out["loadavg_1m_before"] = load_before;
    out["loadavg_1m_after"] = load_average_1m();
    out["clock_offset_us"] = off.offset_us;
    out["clock_offset_uncertainty_us"] = off.uncertainty_us;
    out["clock_offset_drift_us"] = off_after.offset_us - off.offset_us;
    return out;
}

}  // namespace

void run_precision(Context& ctx) {
    const Settings& s = ctx.settings();
    const ConsumerConfig cfg = consumer_config(s);
    warm_up(ctx);
    struct Level {
        std::string variant;
        double rate;
        std::optional<double> fraction;
    };
    std::vector<Level> levels;
    double max_rate = 0;
    if (!s.precision_rates.empty()) {
        for (double r : s.precision_rates) {
            levels.push_back({"rate_" + std::to_string(static_cast<long long>(r)), r, {}});
        }
    } else {
        note("precision: maximum e2e rate with the same consumer settings");
        const std::string q = ctx.fresh_queue("precision-max");
        Json max_line{{"mode", "precision_max"}, {"variant", "e2e"}};
        max_line.update(measure_e2e_batched(ctx, q, ctx.n_or(200'000, 2'000), cfg));
        ctx.probe().drop_queue(q);
        emit(max_line);
        max_rate = max_line["msgs_per_s"].get<double>();
        const double base = ctx.quick() ? std::min(max_rate, kQuickRateCeiling) : max_rate;
        for (int pct : {10, 50, 80}) {
            levels.push_back({"r" + std::to_string(pct), base * pct / 100.0, pct / 100.0});
        }
    }
    for (const auto& level : levels) {
        std::vector<Json> runs;
        for (int r = 0; r < s.runs; ++r) {
            note("precision " + level.variant + " (" + std::to_string(std::lround(level.rate)) +
                 " msg/s) run " + std::to_string(r + 1));
            runs.push_back(measure_precision(ctx, level.rate, cfg, r));
        }
        Json line{{"mode", "precision"}, {"variant", level.variant}};
        if (level.fraction) {
            line["max_e2e_msgs_per_s"] = max_rate;
            line["rate_fraction"] = *level.fraction;
            line["rate_capped_for_quick"] = ctx.quick() && max_rate > kQuickRateCeiling;
        }
        line.update(median_of_runs(runs, "lateness_ms.p99"));
        // Safety and bookkeeping hold in every run, not in the median one.
        for (const char* key : {"early_count", "local_early_count", "redelivered"}) {
            std::int64_t total = 0;
            for (const auto& run : runs) total += run[key].get<std::int64_t>();
            line[key] = total;
        }
        // A level counts only if the producers held its rate (2 % for the ticks' rounding).
        std::vector<Target> targets = {{"send_rate_fraction", true, 0.98},
                                       {"early_count", false, 0.0}};
        if (level.variant == "r80")
            targets.insert(targets.begin(), {"lateness_ms.p99", false, 5.0});
        apply_targets(line, targets);
        emit(line);
        if (s.attribute) {
            note("precision " + level.variant + ": attribution run with SLOWLOG");
            // Entries: the producers' calls (one per tick each), fetches and ack batches.
            const double seconds = ctx.quick() ? 2.0 : s.precision_seconds;
            const auto entries = static_cast<std::size_t>(
                seconds * (1000.0 / s.precision_tick_ms * static_cast<double>(s.batch_producers) +
                           level.rate / 10.0) +
                100'000);
            slowlog_start(ctx.probe(), entries);
            Json measured = measure_precision(ctx, level.rate, cfg, s.runs);
            Json attr{{"mode", "attribution"}, {"variant", "precision_" + level.variant}};
            attr["scripts"] = slowlog_collect(ctx.probe());
            attr["rate_per_s"] = level.rate;
            attr["send_msgs_per_s_with_slowlog"] = measured["send_msgs_per_s"];
            attr["redis_cpu_us_per_msg_with_slowlog"] = measured["redis_cpu_us_per_msg"];
            emit(attr);
        }
    }
}

}  // namespace delayq::bench
