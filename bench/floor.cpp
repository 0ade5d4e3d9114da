// Floors: the bare commands that any store of delayed messages in a hash and zsets needs from
// Redis, sent raw by the client, with no script. delayq's Redis CPU over its floor, both
// measured in the same run, is what its scripts add; unlike the absolute figure, the ratio
// does not move with the shared machine's speed, which varies by a fifth within an hour.

#include <cinttypes>
#include <cstdio>

#include "modes.hpp"

namespace delayq::bench {
namespace {

// delayq's sequence keys' form: 14 hex digits.
std::string seq_key(std::uint64_t n) {
    char key[24];
    std::snprintf(key, sizeof key, "%014" PRIx64, n);
    return key;
}

// A record of the size delayq stores for a 16-byte payload: max_attempts and a msgpack string
// header in front of the payload.
std::string record16() { return std::string("\x05\xb0", 2) + payload16(); }

// The HSET and ZADD of k messages with members seq_key(next..), the way a send stores them.
void store_messages(Probe& conn, const std::string& hash_key, const std::string& zset_key,
                    std::uint64_t& next, std::size_t k, const std::string& record,
                    const std::string& due) {
    std::vector<std::string> hset = {"HSET", hash_key}, zadd = {"ZADD", zset_key};
    for (std::size_t j = 0; j < k; ++j) {
        std::string member = seq_key(next++);
        hset.push_back(member);
        hset.push_back(record);
        zadd.push_back(due);
        zadd.push_back(std::move(member));
    }
    conn.command(hset);
    conn.command(zadd);
}

}  // namespace

Json measure_send_floor(Context& ctx, const std::string& queue, std::size_t n,
                        std::size_t producers, std::size_t batch, std::chrono::milliseconds delay) {
    Probe& probe = ctx.probe();
    // The keys of delayq's layout, so that drop_queue removes them; each record where delayq
    // keeps a lone record due that far ahead (design.md, Keys).
    const std::string hash_key =
        "dq:{" + queue + "}:" + (delay > std::chrono::hours(1) ? "cold" : "msg");
    const std::string zset_key = "dq:{" + queue + "}:pending";
    const std::string due = std::to_string(probe.time_us() / 1000 + delay.count());
    const std::string record = record16();

    std::vector<std::unique_ptr<Probe>> conns(producers);
    Window window(probe);
    auto setup = [&](std::size_t i) {
        conns[i] = std::make_unique<Probe>(detail::parse_url(ctx.url()));
    };
    auto body = [&](std::size_t i) {
        std::size_t share = n / producers + (i < n % producers ? 1 : 0);
        // Members like delayq's sequence keys: 14 hex digits, unique across producers.
        std::uint64_t next = static_cast<std::uint64_t>(i) << 40;
        while (share > 0) {
            const std::size_t k = std::min(share, batch);
            store_messages(*conns[i], hash_key, zset_key, next, k, record, due);
            share -= k;
        }
    };
    auto finish = [&] {
        conns.clear();
        window.stop();
    };
    const double wall = run_threads(
        producers, setup, body, [&] { window.start(); }, finish);
    Json out;
    out["n"] = n;
    out["msgs_per_s"] = static_cast<double>(n) / wall;
    window.add_redis_fields(out, static_cast<double>(n), false);
    return out;
}

Json measure_deliver_floor(Context& ctx, const std::string& queue, std::size_t n,
                           std::size_t batch) {
    Probe& probe = ctx.probe();
    const std::string msg_key = "dq:{" + queue + "}:msg";
    const std::string pending_key = "dq:{" + queue + "}:pending";
    const std::string inflight_key = "dq:{" + queue + "}:inflight";
    const std::int64_t now_ms = probe.time_us() / 1000;
    const std::string due = std::to_string(now_ms - 1000);
    const std::string deadline = std::to_string(now_ms + 3600 * 1000);
    const std::string record = record16();
    // What a delivery appends to the record: attempt, token, due time (design.md).
    const std::string leased = record + std::string("\x01\xae", 2) + seq_key(0) + "\xad" + due;

    for (std::uint64_t next = 0; next < n;) {
        store_messages(probe, msg_key, pending_key, next, std::min<std::uint64_t>(batch, n - next),
                       record, due);
    }

    // One consumer's calls per batch: take the due members, read their records, rewrite them
    // leased and add the leases; then the ack removes the leases and the records.
    Probe conn(detail::parse_url(ctx.url()));
    Window window(probe);
    window.start();
    const auto t0 = SteadyClock::now();
    std::uint64_t token = std::uint64_t{1} << 44;
    for (std::size_t left = n; left > 0;) {
        const std::size_t k = std::min(left, batch);
        const std::string last = std::to_string(k - 1);
        const RawReply members = conn.command({"ZRANGE", pending_key, "0", last});
        conn.command({"ZREMRANGEBYRANK", pending_key, "0", last});
        std::vector<std::string> hmget = {"HMGET", msg_key};
        std::vector<std::string> zrem = {"ZREM", inflight_key};
        std::vector<std::string> hdel = {"HDEL", msg_key};
        std::vector<std::string> hset = {"HSET", msg_key}, zadd = {"ZADD", inflight_key};
        for (const RawReply& m : members.elements) {
            std::string lease = seq_key(token++) + m.str;
            hmget.push_back(m.str);
            hset.push_back(m.str);
            hset.push_back(leased);
            zadd.push_back(deadline);
            zadd.push_back(lease);
            zrem.push_back(std::move(lease));
            hdel.push_back(m.str);
        }
        conn.command(hmget);
        conn.command(hset);
        conn.command(zadd);
        conn.command(zrem);
        conn.command(hdel);
        left -= k;
    }
    const double wall = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    window.stop();
    Json out;
    out["n"] = n;
    out["msgs_per_s"] = static_cast<double>(n) / wall;
    window.add_redis_fields(out, static_cast<double>(n), false);
    return out;
}

void add_floor(Context& ctx, Json& run, const std::string& what,
               const std::function<Json(const std::string& queue)>& measure) {
    // The floor's raw hiredis connection speaks no TLS.
    if (ctx.url().starts_with("rediss:")) return;
    note("floor: " + what);
    const std::string queue = ctx.fresh_queue("floor");
    const Json floor = measure(queue);
    ctx.probe().drop_queue(queue);
    const double floor_us = floor["redis_cpu_us_per_msg"].get<double>();
    run["floor_redis_cpu_us_per_msg"] = floor_us;
    if (floor_us > 0) {
        run["redis_cpu_vs_floor"] = tidy(run["redis_cpu_us_per_msg"].get<double>() / floor_us);
    }
}

}  // namespace delayq::bench
