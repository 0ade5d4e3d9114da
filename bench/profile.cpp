// mode profile: what each script costs Redis, one script at a time, from one thread with the
// low-level Queue calls (send, send_batch, fetch, ack), so that every window holds calls of one
// script only and commandstats splits its time into the commands it runs and Lua itself.

#include <cstdlib>
#include <deque>
#include <random>

#include "modes.hpp"

namespace delayq::bench {
namespace {

struct Phase {
    std::string variant;
    std::size_t msgs = 0;
    std::size_t calls = 0;
    double wall_s = 0;
};

Json phase_line(const Phase& p, const Window& w) {
    Json line{{"mode", "profile"}, {"variant", p.variant}};
    line["n"] = p.msgs;
    line["calls"] = p.calls;
    line["msgs_per_call"] = static_cast<double>(p.msgs) / static_cast<double>(p.calls);
    line["msgs_per_s"] = static_cast<double>(p.msgs) / p.wall_s;
    line["redis_cpu_us_per_call"] = w.redis_cpu_s() * 1e6 / static_cast<double>(p.calls);
    w.add_redis_fields(line, static_cast<double>(p.msgs), false);
    return line;
}

void run_hook(const Context& ctx, const std::string& phase) {
    const std::string& hook = ctx.settings().phase_hook;
    if (hook.empty()) return;
    std::string command = hook;
    if (auto at = command.find("{}"); at != std::string::npos) {
        command.replace(at, 2, phase);
    } else {
        command += " " + phase;
    }
    if (std::system(command.c_str()) != 0) note("phase hook failed: " + command);
}

template <typename Body>
Json timed(Context& ctx, Phase p, Body&& body) {
    run_hook(ctx, "before_" + p.variant);
    Window w(ctx.probe());
    w.start();
    const auto t0 = SteadyClock::now();
    body(p);
    p.wall_s = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    w.stop();
    run_hook(ctx, p.variant);
    return phase_line(p, w);
}

// The shapes of the precision mode's steady load (due times spread over 10 s): sends of a
// millisecond's worth of messages, each with its own delay; fetches and acks of the few that
// fell due since the last call, each with its own due time.
void spread_phases(Context& ctx, Client& client, const std::string& name, std::size_t n,
                   std::vector<Json>& lines) {
    constexpr std::size_t kPerSend = 15;
    constexpr std::size_t kPerFetch = 8;
    Queue q = client.queue(name);
    Leases leases = client.leases(name);
    const std::string payload = payload16();
    std::mt19937_64 random(7);  // the same delays in every run
    std::uniform_int_distribution<std::int64_t> delay_ms(0, 9'999);
    std::vector<Message> batch(kPerSend, Message{payload, {}});
    auto send_spread = [&](std::size_t count, Phase* p) {
        for (std::size_t sent = 0; sent < count; sent += kPerSend) {
            for (auto& m : batch) m.options.delay = Duration(delay_ms(random));
            q.send_batch(std::span<const Message>(batch).first(std::min(kPerSend, count - sent)));
            if (p != nullptr) ++p->calls;
        }
    };
    send_spread(n, nullptr);  // a queue of some size to insert into
    lines.push_back(
        timed(ctx, Phase{"send_15_spread", n, 0}, [&](Phase& p) { send_spread(n, &p); }));
    // Every message due, each at its own millisecond, in the past.
    const TimePoint base = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now() -
                                                                  std::chrono::hours(2));
    for (std::size_t sent = 0; sent < n; sent += kPerSend) {
        for (std::size_t i = 0; i < kPerSend; ++i) {
            batch[i].options =
                SendOptions{.at = base + Duration(static_cast<std::int64_t>(sent + i))};
        }
        q.send_batch(std::span<const Message>(batch).first(std::min(kPerSend, n - sent)));
    }
    std::deque<Lease> leased;
    lines.push_back(timed(ctx, Phase{"fetch_8_spread", 0, 0}, [&](Phase& p) {
        while (p.msgs < n) {
            FetchResult r = leases.fetch(std::min(kPerFetch, n - p.msgs), std::chrono::minutes(10));
            ++p.calls;
            if (r.deliveries.empty()) break;
            p.msgs += r.deliveries.size();
            for (auto& d : r.deliveries) leased.push_back(d.lease());
        }
    }));
    lines.push_back(timed(ctx, Phase{"ack_8", 0, 0}, [&](Phase& p) {
        std::vector<Lease> chunk;
        while (!leased.empty()) {
            chunk.clear();
            while (chunk.size() < kPerFetch && !leased.empty()) {
                chunk.push_back(leased.front());
                leased.pop_front();
            }
            leases.ack(chunk);
            p.msgs += chunk.size();
            ++p.calls;
        }
    }));
}

std::vector<Json> profile_once(Context& ctx, std::size_t n) {
    const std::string name = ctx.fresh_queue("profile");
    Client client(ctx.url(), {.engine = ctx.settings().engine});
    Queue q = client.queue(name);
    Leases leases = client.leases(name);
    client.ping();
    std::vector<Json> lines;
    const std::string payload = payload16();
    const std::size_t singles = std::max<std::size_t>(n / 5, 1);
    // Past Redis's listpack limits (hash 512 entries, zset 128 by default), so that every phase
    // sees the hash table and skip list encodings of a queue of some size: in a listpack each
    // HSETNX, HGET or HDEL scans the entries, which would dominate a small run.
    {
        std::vector<Message> far(1000,
                                 Message{payload, SendOptions{.delay = std::chrono::hours(24)}});
        q.send_batch(far);
    }

    lines.push_back(timed(ctx, Phase{"send_1", singles, singles}, [&](Phase&) {
        for (std::size_t i = 0; i < singles; ++i) q.send(payload);
    }));
    for (std::size_t batch : {std::size_t{100}, std::size_t{1000}}) {
        std::vector<Message> msgs(batch, Message{payload, {}});
        lines.push_back(timed(ctx, Phase{"send_" + std::to_string(batch), n, 0}, [&](Phase& p) {
            for (std::size_t sent = 0; sent < n; sent += batch) {
                q.send_batch(std::span<const Message>(msgs).first(std::min(batch, n - sent)));
                ++p.calls;
            }
        }));
    }
    // Everything above is due now: 2n + n/5 ready messages.
    std::deque<Delivery> leased;
    const Duration visibility = std::chrono::minutes(10);
    auto fetch_phase = [&](const std::string& variant, std::size_t count, std::size_t want) {
        return timed(ctx, Phase{variant, 0, 0}, [&](Phase& p) {
            while (p.msgs < want) {
                FetchResult r = leases.fetch(std::min(count, want - p.msgs), visibility);
                ++p.calls;
                if (r.deliveries.empty()) break;
                p.msgs += r.deliveries.size();
                for (auto& d : r.deliveries) leased.push_back(std::move(d));
            }
        });
    };
    for (std::size_t count : {std::size_t{1}, std::size_t{100}, std::size_t{1000}}) {
        lines.push_back(
            fetch_phase("fetch_" + std::to_string(count), count, count == 1 ? singles : n));
    }
    // fetch_1000 meets batches whose messages share their due time; here every message has its
    // own, so each fetch pays for the scores Redis formats (fetch.lua's WITHSCORES path).
    {
        const TimePoint base = std::chrono::time_point_cast<Duration>(
            std::chrono::system_clock::now() - std::chrono::hours(1));
        std::vector<Message> spread(1000, Message{payload, {}});
        for (std::size_t sent = 0; sent < n; sent += spread.size()) {
            for (std::size_t i = 0; i < spread.size(); ++i) {
                spread[i].options.at = base + Duration(static_cast<std::int64_t>(sent + i));
            }
            q.send_batch(std::span<const Message>(spread).first(std::min(spread.size(), n - sent)));
        }
    }
    lines.push_back(fetch_phase("fetch_1000_distinct_due", 1000, n));
    lines.push_back(timed(ctx, Phase{"ack_1", singles, singles}, [&](Phase&) {
        for (std::size_t i = 0; i < singles && !leased.empty(); ++i) {
            leases.ack(leased.front().lease());
            leased.pop_front();
        }
    }));
    lines.push_back(timed(ctx, Phase{"ack_1000", 0, 0}, [&](Phase& p) {
        std::vector<Lease> chunk;
        while (p.msgs < n && !leased.empty()) {
            chunk.clear();
            while (chunk.size() < 1000 && p.msgs + chunk.size() < n && !leased.empty()) {
                chunk.push_back(leased.front().lease());
                leased.pop_front();
            }
            leases.ack(chunk);
            p.msgs += chunk.size();
            ++p.calls;
        }
    }));
    // An idle fetch: nothing due (the rest is in flight with a long lease).
    client.queue(name + "-empty").send(payload, SendOptions{.delay = std::chrono::hours(1)});
    Leases idle = client.leases(name + "-empty");
    const std::size_t idle_calls = std::max<std::size_t>(n / 10, 1);
    lines.push_back(timed(ctx, Phase{"fetch_idle", idle_calls, idle_calls}, [&](Phase&) {
        for (std::size_t i = 0; i < idle_calls; ++i) idle.fetch(100, visibility);
    }));
    spread_phases(ctx, client, name + "-spread", n, lines);
    ctx.probe().drop_queue(name);
    ctx.probe().drop_queue(name + "-empty");
    ctx.probe().drop_queue(name + "-spread");
    return lines;
}

}  // namespace

void run_profile(Context& ctx) {
    const std::size_t n = ctx.n_or(100'000, 1'000);
    warm_up(ctx);
    std::map<std::string, std::vector<Json>> runs;
    std::vector<std::string> order;
    for (int r = 0; r < ctx.settings().runs; ++r) {
        note("profile run " + std::to_string(r + 1));
        for (auto& line : profile_once(ctx, n)) {
            const std::string v = line["variant"].get<std::string>();
            if (!runs.contains(v)) order.push_back(v);
            runs[v].push_back(std::move(line));
        }
    }
    for (const auto& v : order) emit(median_of_runs(runs[v], "redis_cpu_us_per_msg"));
}

}  // namespace delayq::bench
