// mode e2e: n messages due at one instant, drained by a Consumer whose handler acks at once.
//   c1:  handler concurrency 1;  c64: concurrency 64.
// Unless --prefetch/--max-batch are given, a sweep over prefetch and max_batch (lines with mode
// e2e_sweep, one run each) picks the best settings, which are then run --runs times.

#include <atomic>
#include <memory>
#include <thread>

#include "modes.hpp"

namespace delayq::bench {
namespace {

using namespace std::chrono_literals;

// What the first handler call saw.
struct FirstDelivery {
    std::atomic<bool> seen{false};
    std::atomic<std::int64_t> local_us{0};
    std::atomic<std::int64_t> lateness_ms{0};  // delivered_at - due, Redis clock
};

// The prefetch of a config: its number, or "auto" for the library's automatic prefetch.
Json prefetch_json(const ConsumerConfig& c) {
    if (c.prefetch) return Json(*c.prefetch);
    return Json("auto");
}

Json config_json(const ConsumerConfig& c) {
    return Json{
        {"concurrency", c.concurrency}, {"prefetch", prefetch_json(c)}, {"max_batch", c.max_batch}};
}

std::string describe(const ConsumerConfig& c) {
    const std::string prefetch = c.prefetch ? std::to_string(*c.prefetch) : "auto";
    return "concurrency " + std::to_string(c.concurrency) + ", prefetch " + prefetch +
           ", max_batch " + std::to_string(c.max_batch);
}

}  // namespace

Json measure_e2e(Context& ctx, const std::string& queue, std::size_t n, const ConsumerConfig& cfg,
                 double estimate_s, const std::function<void(TimePoint at)>& send) {
    Probe& probe = ctx.probe();
    // The consumer starts after the send and must be asleep before the due time.
    const double lead_s = ctx.quick() ? 0.08 : 0.15;
    double margin_s = std::max(ctx.quick() ? 0.15 : 0.4, estimate_s * 1.5 + lead_s + 0.1);
    for (int attempt = 1;; ++attempt) {
        const ClockOffset off = measure_clock_offset(probe);
        const std::int64_t due_ms =
            probe.time_us() / 1000 + static_cast<std::int64_t>(margin_s * 1000);
        const std::int64_t due_local_us = due_ms * 1000 - off.offset_us;
        send(TimePoint(Duration(due_ms)));
        const bool overran =
            local_now_us() > due_local_us - static_cast<std::int64_t>(lead_s * 1e6);

        auto first = std::make_shared<FirstDelivery>();
        Client client(ctx.url(), ctx.settings().client_options);
        Consumer consumer(
            client.leases(queue),
            [first](const Delivery& d) -> Outcome {
                if (!first->seen.exchange(true)) {
                    first->local_us = local_now_us();
                    first->lateness_ms = (d.delivered_at() - d.due()).count();
                }
                return Ack{};
            },
            cfg.options());
        consumer.start();
        while (local_now_us() < due_local_us - 30'000) std::this_thread::sleep_for(1ms);
        Window window(probe);
        window.start();
        const std::int64_t deadline_us =
            due_local_us + std::max<std::int64_t>(60'000'000, static_cast<std::int64_t>(n) * 1000);
        bool complete = true;
        while (consumer.stats().acked < n) {
            if (local_now_us() > deadline_us) {
                complete = false;
                break;
            }
            // Coarse enough not to cost the consumer a core's share of context switches;
            // 1 ms is under 0.1 % of a drain.
            std::this_thread::sleep_for(1ms);
        }
        const std::int64_t end_us = local_now_us();
        window.stop();
        consumer.stop();
        consumer.wait();
        const ConsumerStats st = consumer.stats();
        if (overran && attempt < 4) {
            note("e2e: the send overran the due time; again with more room");
            margin_s *= 2;
            continue;
        }
        const double drain_s = static_cast<double>(end_us - due_local_us) / 1e6;
        Json out = config_json(cfg);
        out["n"] = n;
        out["msgs_per_s"] = static_cast<double>(n) / drain_s;
        out["drain_s"] = drain_s;
        out["first_due_to_first_delivery_ms"] =
            static_cast<double>(first->local_us.load() - due_local_us) / 1000.0;
        out["first_delivered_at_minus_due_ms"] = first->lateness_ms.load();
        window.add_redis_fields(out, static_cast<double>(n), false);
        out["redis_cpu_util"] = window.redis_cpu_s() / drain_s;
        out["client_cpu_util"] = window.client_cpu_s() / drain_s;
        // Only fetch (and extend, every visibility/3) read TIME; ack does not: so the operations'
        // calls split into fetches and ack calls.
        const auto fetches = window.cmd("time").calls;
        const auto acks = window.operations().calls - fetches;
        out["fetch_calls"] = fetches;
        out["ack_calls"] = acks;
        out["msgs_per_fetch"] =
            static_cast<double>(n) / static_cast<double>(std::max<std::int64_t>(1, fetches));
        out["acks_per_ack_call"] =
            static_cast<double>(n) / static_cast<double>(std::max<std::int64_t>(1, acks));
        out["acked"] = st.acked;
        out["leases_lost"] = st.leases_lost;
        out["redis_errors"] = st.redis_errors;
        out["complete"] = complete && st.acked == n && !overran;
        out["clock_offset_us"] = off.offset_us;
        return out;
    }
}

Json measure_e2e_batched(Context& ctx, const std::string& queue, std::size_t n,
                         const ConsumerConfig& cfg) {
    const auto& s = ctx.settings();
    return measure_e2e(ctx, queue, n, cfg, static_cast<double>(n) / ctx.batch_rate,
                       [&](TimePoint at) {
                           send_batches(ctx.url(), ctx.settings().client_options, queue, n, 1000,
                                        s.batch_producers, SendOptions{.at = at});
                       });
}

void run_e2e(Context& ctx) {
    const Settings& s = ctx.settings();
    const std::size_t n = ctx.n_or(200'000, 2'000);
    warm_up(ctx);

    struct Variant {
        std::string name;
        std::size_t concurrency;
        std::vector<std::size_t> prefetches;
        std::vector<Target> targets;
    };
    const std::vector<Variant> variants = {
        {"c1", 1, {0, 100, 1000, 5000}, {{"msgs_per_s", true, 30'000}}},
        {"c64",
         64,
         {0, 64, 256, 1000, 5000},
         {{"msgs_per_s", true, 100'000}, {"redis_cpu_us_per_msg", false, 3.0}}},
    };
    for (const auto& v : variants) {
        std::vector<ConsumerConfig> candidates;
        if (s.max_batch > 0) {
            candidates.push_back({v.concurrency, s.prefetch, s.max_batch});
        } else if (ctx.quick()) {
            candidates.push_back({v.concurrency, std::nullopt, 100});  // the defaults
        } else {
            // The library's defaults (automatic prefetch, max_batch 100), then with 1000.
            candidates.push_back({v.concurrency, std::nullopt, 100});
            candidates.push_back({v.concurrency, std::nullopt, 1000});
            for (std::size_t p : v.prefetches) {
                for (std::size_t mb : {std::size_t{100}, std::size_t{1000}}) {
                    // A fetch asks for at most concurrency + prefetch: a larger max_batch is
                    // the same run again.
                    if (mb > 100 && v.concurrency + p <= 100) continue;
                    candidates.push_back({v.concurrency, p, mb});
                }
            }
        }
        ConsumerConfig best = candidates.front();
        if (candidates.size() > 1) {
            double best_rate = -1;
            for (const auto& c : candidates) {
                note("e2e " + v.name + " sweep: " + describe(c));
                const std::string q = ctx.fresh_queue("e2e");
                Json line{{"mode", "e2e_sweep"}, {"variant", v.name}};
                line.update(measure_e2e_batched(ctx, q, std::max<std::size_t>(n / 2, 1), c));
                ctx.probe().drop_queue(q);
                const double rate = line["msgs_per_s"].get<double>();
                if (line["complete"].get<bool>() && rate > best_rate) {
                    best_rate = rate;
                    best = c;
                }
                emit(line);
            }
        }
        std::vector<Json> runs;
        for (int r = 0; r < s.runs; ++r) {
            note("e2e " + v.name + " run " + std::to_string(r + 1) + ": " + describe(best));
            const std::string q = ctx.fresh_queue("e2e");
            runs.push_back(measure_e2e_batched(ctx, q, n, best));
            ctx.probe().drop_queue(q);
            add_floor(
                ctx, runs.back(),
                "e2e, the same work in raw commands, batches of " + std::to_string(best.max_batch),
                [&](const std::string& fq) {
                    return measure_deliver_floor(ctx, fq, n, best.max_batch);
                });
        }
        Json line{{"mode", "e2e"}, {"variant", v.name}};
        line.update(median_of_runs(runs, "msgs_per_s"));
        line["swept_configs"] = candidates.size();
        apply_targets(line, v.targets);
        emit(line);
        if (v.concurrency == 64) {
            ctx.best_prefetch = best.prefetch;
            ctx.best_max_batch = best.max_batch;
        }
        if (s.attribute) {
            note("e2e " + v.name + ": attribution run with SLOWLOG");
            const std::size_t na = std::min<std::size_t>(n, 50'000);
            const std::string q = ctx.fresh_queue("e2e");
            slowlog_start(ctx.probe(), na * 6 + 100'000);
            Json measured = measure_e2e_batched(ctx, q, na, best);
            Json scripts = slowlog_collect(ctx.probe());
            ctx.probe().drop_queue(q);
            Json attr{{"mode", "attribution"}, {"variant", "e2e_" + v.name}};
            attr.update(config_json(best));
            attr["n"] = na;
            attr["msgs_per_s_with_slowlog"] = measured["msgs_per_s"];
            attr["scripts"] = scripts;
            emit(attr);
        }
    }
}

}  // namespace delayq::bench
