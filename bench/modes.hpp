#pragma once

// The modes of delayq-bench, one file each, and the building blocks they share.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "harness.hpp"

namespace delayq::bench {

void run_enqueue(Context& ctx);
void run_e2e(Context& ctx);
void run_latency(Context& ctx);
void run_memory(Context& ctx);
void run_backlog(Context& ctx);
void run_idle(Context& ctx);
void run_profile(Context& ctx);
void run_precision(Context& ctx);
void run_cluster(Context& ctx);

// A send before any measured window, so that script loading is not measured.
void warm_up(Context& ctx);

// Sends n messages to `queue` and measures it. producers threads, each with its own Client, or
// with shared_queue all sharing one Client (pool_size = producers) and one Queue, whose
// concurrent Queue::send calls the library may group; batch 0 means one message per call
// (Queue::send), else Queue::send_batch of `batch`. in_flight > 0 (with batch 0): one Client
// and Queue, and each producer uses Queue::send_async, waiting for its oldest send whenever
// in_flight are outstanding.
// The line holds n, producers, batch, msgs_per_s and the Redis-side fields.
Json measure_enqueue(Context& ctx, const std::string& queue, std::size_t n, std::size_t producers,
                     std::size_t batch, const SendOptions& options, bool with_memory,
                     bool shared_queue = false, std::size_t in_flight = 0,
                     std::chrono::milliseconds spread = {});

// The same messages' bare Redis work (HSET of the records, ZADD of the members, no script) from
// `producers` raw connections in calls of `batch`, due `delay` ahead: the per-record floor that
// batch sends are compared with (records in the hash where delayq keeps single records then).
Json measure_send_floor(Context& ctx, const std::string& queue, std::size_t n,
                        std::size_t producers, std::size_t batch, std::chrono::milliseconds delay);

// n messages due now, delivered and acked by one raw connection in batches: ZRANGE,
// ZREMRANGEBYRANK, HMGET of the records, HSET of the leased records, ZADD of the leases, then
// ZREM of the leases and HDEL of the records. The floor that e2e runs are compared with.
Json measure_deliver_floor(Context& ctx, const std::string& queue, std::size_t n,
                           std::size_t batch);

// Measures a floor on a fresh queue with `measure` (one of the above) right after `run`, and
// adds its Redis CPU per message and the run's ratio to it (redis_cpu_vs_floor) to `run`.
void add_floor(Context& ctx, Json& run, const std::string& what,
               const std::function<Json(const std::string& queue)>& measure);

struct ConsumerConfig {
    std::size_t concurrency = 1;
    std::optional<std::size_t> prefetch{};  // unset: the library's automatic prefetch
    std::size_t max_batch = 100;

    ConsumerOptions options() const {
        ConsumerOptions o;
        o.concurrency = concurrency;
        o.prefetch = prefetch;
        o.max_batch = max_batch;
        return o;
    }
};

// One end-to-end run: `send(at)` puts n messages due at `at` (Redis clock) into `queue`; then a
// Consumer drains them and the line tells how fast, from the due time to the last ack.
// estimate_s is the expected duration of send(); the due time is set far enough ahead for it,
// and the run is repeated with more room if the send overran it.
Json measure_e2e(Context& ctx, const std::string& queue, std::size_t n, const ConsumerConfig& cfg,
                 double estimate_s, const std::function<void(TimePoint at)>& send);

// The same, with n messages sent in batches (the usual case).
Json measure_e2e_batched(Context& ctx, const std::string& queue, std::size_t n,
                         const ConsumerConfig& cfg);

// Per-script cost from SLOWLOG with a 0 threshold (every command, script-inner ones included,
// each logged just before the EVALSHA that ran it). Call start before, collect after.
void slowlog_start(Probe& probe, std::size_t max_len);
Json slowlog_collect(Probe& probe);

// Writes a text file of samples for bench/plot.sh when --data-dir is set.
void write_data(const Context& ctx, const std::string& name, const std::string& text, bool append);

}  // namespace delayq::bench
