// mode enqueue: producer throughput and what a send costs Redis.
//   single: one message per call, `producers` threads (64) each with its own Client.
//   single_shared: the same threads sharing one Queue (the library groups their calls).
//   single_async: one message per call through send_async, from one thread that keeps
//                 `in_flight` (64) sends outstanding, waiting for the oldest.
//   batch:  send_batch of `batch` (1000) from `batch_producers` threads (2); batch_100 too.
//   batch_near: as batch, due in 30 minutes instead of 24 hours: the records are stored one by
//               one in msg, not in blocks (docs/design.md, Keys).
//   batch_spread: as batch, each message due at its own time, uniform over the next 10 s (the
//                 precision mode's sends).

#include <deque>
#include <future>
#include <memory>
#include <optional>

#include "modes.hpp"

namespace delayq::bench {

void warm_up(Context& ctx) {
    const std::string q = ctx.fresh_queue("warmup");
    Client client(ctx.url(), ctx.settings().client_options);
    client.queue(q).send(payload16(), SendOptions{.delay = std::chrono::hours(1)});
    ctx.probe().drop_queue(q);
}

Json measure_enqueue(Context& ctx, const std::string& queue, std::size_t n, std::size_t producers,
                     std::size_t batch, const SendOptions& options, bool with_memory,
                     bool shared_queue, std::size_t in_flight, std::chrono::milliseconds spread) {
    Probe& probe = ctx.probe();
    Window window(probe);
    // Memory is compared with a baseline taken before the producers connect, and measured after
    // their connections are gone, so that client buffers do not count.
    const std::int64_t clients_before = probe.connected_clients();
    window.set_memory_baseline(probe.used_memory());
    auto start = [&] { window.start(); };
    auto stop = [&] {
        probe.wait_clients_at_most(clients_before);
        window.stop();
    };
    double wall = 0;
    if (batch > 0) {
        wall = send_batches(ctx.url(), ctx.settings().client_options, queue, n, batch, producers,
                            options, spread, start, stop);
    } else {
        std::vector<std::unique_ptr<Client>> clients(producers);
        std::vector<std::optional<Queue>> queues(producers);
        if (in_flight > 0) shared_queue = true;
        if (shared_queue) {
            ClientOptions o = ctx.settings().client_options;
            o.pool_size = producers;
            clients[0] = std::make_unique<Client>(ctx.url(), o);
            clients[0]->ping();
            Queue q = clients[0]->queue(queue);
            for (auto& slot : queues) slot = q;
        }
        auto setup = [&](std::size_t i) {
            if (shared_queue) return;
            clients[i] = std::make_unique<Client>(ctx.url(), ctx.settings().client_options);
            clients[i]->ping();
            queues[i] = clients[i]->queue(queue);
        };
        auto body = [&](std::size_t i) {
            Queue& q = *queues[i];
            const std::string payload = payload16();
            std::size_t share = n / producers + (i < n % producers ? 1 : 0);
            if (in_flight == 0) {
                for (std::size_t k = 0; k < share; ++k) q.send(payload, options);
                return;
            }
            std::deque<std::future<SendResult>> outstanding;
            for (std::size_t k = 0; k < share; ++k) {
                if (outstanding.size() >= in_flight) {
                    outstanding.front().get();
                    outstanding.pop_front();
                }
                outstanding.push_back(q.send_async(payload, options));
            }
            for (auto& f : outstanding) f.get();
        };
        auto finish = [&] {
            queues.clear();
            clients.clear();  // connections closed before the closing measurement
            stop();
        };
        wall = run_threads(producers, setup, body, start, finish);
    }
    Json out;
    out["n"] = n;
    out["producers"] = producers;
    out["shared_queue"] = shared_queue;
    if (in_flight > 0) out["in_flight"] = in_flight;
    out["batch"] = batch == 0 ? 1 : batch;
    out["payload_bytes"] = payload16().size();
    out["msgs_per_s"] = static_cast<double>(n) / wall;
    window.add_redis_fields(out, static_cast<double>(n), with_memory);
    // Calls in flight are what a round-trip-bound producer scales with.
    out["calls_per_s"] = static_cast<double>(window.operations().calls) / wall;
    out["msgs_per_call"] = static_cast<double>(n) / static_cast<double>(std::max<std::int64_t>(
                                                        1, window.operations().calls));
    out["redis_usec_per_call"] =
        static_cast<double>(window.operations().usec) /
        static_cast<double>(std::max<std::int64_t>(1, window.operations().calls));
    return out;
}

void run_enqueue(Context& ctx) {
    const Settings& s = ctx.settings();
    const std::size_t n_batch = ctx.n_or(500'000, 4'000);
    const std::size_t n_single = ctx.n_or(200'000, 2'000);
    warm_up(ctx);

    struct Variant {
        std::string name;
        std::size_t n, producers, batch;
        bool shared;
        std::vector<Target> targets;
        std::size_t in_flight = 0;  // send_async from one thread
        bool with_floor = false;    // each run followed by measure_send_floor
        std::chrono::milliseconds delay = std::chrono::hours(24);
        std::chrono::milliseconds spread{0};  // each message's delay + uniform 0..spread
    };
    const std::vector<Target> single_targets = {{"msgs_per_s", true, 100'000}};
    std::vector<Variant> variants = {
        {"single", n_single, s.producers, 0, false, single_targets},
        {"single_shared", n_single, s.producers, 0, true, single_targets},
        {"single_async", n_single, 1, 0, true, single_targets, s.in_flight},
        {"batch",
         n_batch,
         s.batch_producers,
         s.batch,
         false,
         {{"msgs_per_s", true, 200'000}, {"redis_cpu_us_per_msg", false, 2.0}},
         0,
         true},
        {"batch_100", n_batch, s.batch_producers, 100, false, {}},
        {"batch_near",
         n_batch,
         s.batch_producers,
         s.batch,
         false,
         {},
         0,
         true,
         std::chrono::minutes(30)},
        // Due times spread as in the precision mode: each message due at its own instant.
        {"batch_spread",
         n_batch,
         s.batch_producers,
         s.batch,
         false,
         {},
         0,
         false,
         std::chrono::milliseconds(0),
         std::chrono::seconds(10)},
    };
    for (const auto& v : variants) {
        std::vector<Json> runs;
        for (int r = 0; r < s.runs; ++r) {
            note("enqueue " + v.name + " run " + std::to_string(r + 1));
            const std::string q = ctx.fresh_queue("enqueue");
            runs.push_back(measure_enqueue(ctx, q, v.n, v.producers, v.batch,
                                           SendOptions{.delay = v.delay}, true, v.shared,
                                           v.in_flight, v.spread));
            ctx.probe().drop_queue(q);
            if (v.with_floor) {
                add_floor(ctx, runs.back(), "enqueue, HSET + ZADD without a script",
                          [&](const std::string& fq) {
                              return measure_send_floor(ctx, fq, v.n, v.producers, v.batch,
                                                        v.delay);
                          });
            }
        }
        Json line{{"mode", "enqueue"}, {"variant", v.name}};
        line.update(median_of_runs(runs, "msgs_per_s"));
        apply_targets(line, v.targets);
        if (v.name == "single") ctx.single_rate = line["msgs_per_s"].get<double>();
        if (v.name == "batch") ctx.batch_rate = line["msgs_per_s"].get<double>();
        emit(line);
    }
}

}  // namespace delayq::bench
