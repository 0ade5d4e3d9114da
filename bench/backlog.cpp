// mode backlog: enqueue and e2e throughput with 0, 1M and 10M messages pending in the far future
// in the same queue (--sizes, --backlog-delay). Each run sends n messages in batches and n one per
// call, all due at one instant (each send measured), then a c64 consumer drains them (measured as
// e2e).
// The machine's speed drifts by a fifth within minutes, more than the backlog's effect, so a ratio
// to the smallest size, measured minutes earlier, mixes the two. Each run at a larger size is
// therefore paired with the same run on an empty queue right before it, and the target applies
// to the ratio of their medians (ratio_vs_paired_empty); ratio_vs_smallest is reported too.

#include <algorithm>
#include <map>
#include <sstream>

#include "modes.hpp"

namespace delayq::bench {

void run_backlog(Context& ctx) {
    const Settings& s = ctx.settings();
    std::vector<std::size_t> sizes = s.sizes;
    if (sizes.empty()) {
        sizes = ctx.quick() ? std::vector<std::size_t>{0, 5'000}
                            : std::vector<std::size_t>{0, 1'000'000, 10'000'000};
    }
    std::sort(sizes.begin(), sizes.end());
    const std::size_t n = ctx.n_or(200'000, 1'000);
    ConsumerConfig cfg{64, 1000, 1000};
    if (s.max_batch > 0) {
        cfg = {64, s.prefetch, s.max_batch};
    } else if (ctx.best_max_batch > 0) {
        cfg = {64, ctx.best_prefetch, ctx.best_max_batch};
    }
    warm_up(ctx);
    const std::string queue = ctx.fresh_queue("backlog");
    const SendOptions far{.delay = s.backlog_delay};
    std::size_t loaded = 0;
    std::map<std::string, double> empty_rate;  // variant -> msgs_per_s at the smallest size
    std::ostringstream data;
    data << "# backlog enqueue_batch enqueue_single e2e_c64, then the same on the paired empty "
            "queue (msgs/s)\n";
    for (std::size_t size : sizes) {
        if (size > loaded) {
            note("backlog: loading " + std::to_string(size - loaded) + " far-future messages");
            Window load(ctx.probe());
            double wall = send_batches(
                ctx.url(), ctx.settings().client_options, queue, size - loaded, 1000,
                s.batch_producers, far, {}, [&] { load.start(); }, [&] { load.stop(); });
            note("backlog: loaded at " +
                 std::to_string(static_cast<long long>(static_cast<double>(size - loaded) / wall)) +
                 " msgs/s, used_memory +" + std::to_string(load.memory_delta() / (1 << 20)) +
                 " MiB");
            loaded = size;
        }
        // Measured in the steady state: right after a load that made the tables double (at
        // 8,388,608 entries on the way to 10M), every command also meets the half-moved old
        // table until enough accesses finished the rehash. The first runs then measured
        // 117k-127k msg/s of batch enqueue, and 231k after it (docs/benchmarks.md).
        std::uint64_t rehash_lookups = 0;
        double rehash_s = 0;
        if (s.settle_rehash) {
            const std::int64_t t0 = local_now_us();
            rehash_lookups = ctx.probe().finish_rehash(queue);
            rehash_s = static_cast<double>(local_now_us() - t0) / 1e6;
            if (rehash_lookups > 0) {
                note("backlog: finished the tables' rehash with " + std::to_string(rehash_lookups) +
                     " lookups");
            }
        }
        // One measured run on queue q: its three lines go to out.
        auto measure = [&](const std::string& q, std::map<std::string, std::vector<Json>>& out) {
            const double estimate =
                static_cast<double>(n) / ctx.batch_rate + static_cast<double>(n) / ctx.single_rate;
            Json batch, single;
            Json e2e = measure_e2e(ctx, q, 2 * n, cfg, estimate, [&](TimePoint at) {
                const SendOptions due{.at = at};
                batch = measure_enqueue(ctx, q, n, s.batch_producers, s.batch, due, false);
                single = measure_enqueue(ctx, q, n, s.producers, 0, due, false);
            });
            out["enqueue_batch"].push_back(batch);
            out["enqueue_single"].push_back(single);
            out["e2e_c64"].push_back(e2e);
        };
        std::map<std::string, std::vector<Json>> runs, paired;
        for (int r = 0; r < s.runs; ++r) {
            if (size > 0) {
                note("backlog " + std::to_string(size) + " run " + std::to_string(r + 1) +
                     ": paired run on an empty queue");
                const std::string empty = ctx.fresh_queue("backlog-empty");
                measure(empty, paired);
                ctx.probe().drop_queue(empty);
            }
            note("backlog " + std::to_string(size) + " run " + std::to_string(r + 1));
            measure(queue, runs);
        }
        data << size;
        std::ostringstream empties;  // the paired empty queue's rates, after the backlog's
        for (const char* variant : {"enqueue_batch", "enqueue_single", "e2e_c64"}) {
            Json line{{"mode", "backlog"}, {"variant", variant}, {"backlog", size}};
            line.update(median_of_runs(runs[variant], "msgs_per_s"));
            const double rate = line["msgs_per_s"].get<double>();
            if (!empty_rate.contains(variant)) empty_rate[variant] = rate;
            line["ratio_vs_smallest"] = rate / empty_rate[variant];
            if (size > 0) {
                const Json empty_line = median_of_runs(paired[variant], "msgs_per_s");
                const double empty = empty_line["msgs_per_s"].get<double>();
                line["paired_empty_msgs_per_s"] = empty;
                line["paired_empty_msgs_per_s_runs"] = empty_line["msgs_per_s_runs"];
                line["paired_empty_redis_cpu_us_per_msg"] = empty_line["redis_cpu_us_per_msg"];
                line["ratio_vs_paired_empty"] = rate / empty;
                empties << ' ' << empty;
            } else {
                empties << ' ' << rate;
            }
            line["rehash_settled"] = s.settle_rehash;
            line["rehash_lookups"] = rehash_lookups;
            line["rehash_s"] = rehash_s;
            line["backlog_delay_s"] = s.backlog_delay.count();
            if (size > 0) apply_targets(line, {{"ratio_vs_paired_empty", true, 0.8}});
            data << ' ' << rate;
            emit(line);
        }
        data << empties.str() << '\n';
    }
    write_data(ctx, "backlog.dat", data.str(), false);
    note("backlog: dropping the queue");
    ctx.probe().drop_queue(queue);
}

}  // namespace delayq::bench
