// mode memory: Redis bytes per pending message (16-byte payload, due far in the future), from
// the used_memory delta over n messages, and where they go (MEMORY USAGE per key).

#include "modes.hpp"

namespace delayq::bench {
namespace {

std::int64_t key_bytes(Probe& probe, const std::string& key) {
    RawReply r = probe.command({"MEMORY", "USAGE", key, "SAMPLES", "0"});
    return r.kind == RawReply::Kind::kInteger ? r.integer : 0;
}

Json measure_memory(Context& ctx, std::size_t n) {
    Probe& probe = ctx.probe();
    const std::string queue = ctx.fresh_queue("memory");
    const auto key = [&](const char* part) { return "dq:{" + queue + "}:" + part; };
    Window window(probe);
    const std::int64_t clients = probe.connected_clients();
    window.set_memory_baseline(probe.used_memory());
    const double wall = send_batches(
        ctx.url(), ctx.settings().client_options, queue, n, 1000, ctx.settings().batch_producers,
        SendOptions{.delay = std::chrono::hours(24 * 30)}, {}, [&] { window.start(); },
        [&] {
            probe.wait_clients_at_most(clients);
            window.stop();
        });
    // Sent 30 days ahead in batches, the records are in blocks (or, for a queue without them,
    // the cold hash; docs/design.md): measure every key that holds records.
    std::string records = key("msg");
    for (const char* part : {"blocks", "cold"}) {
        if (probe.command({"EXISTS", key(part)}).integer == 1) {
            records = key(part);
            break;
        }
    }
    std::int64_t msg_bytes = 0;
    for (const char* part : {"msg", "cold", "blocks", "blockidx"}) {
        msg_bytes += key_bytes(probe, key(part));
    }
    const std::int64_t pending_bytes = key_bytes(probe, key("pending"));
    const std::int64_t small_keys =
        key_bytes(probe, key("stats")) + key_bytes(probe, key("settings"));
    std::string record_bytes = "0";
    RawReply head = probe.command({"ZRANGE", key("pending"), "0", "0"});
    if (!head.elements.empty() && records != key("blocks")) {
        RawReply len = probe.command({"HSTRLEN", records, head.elements[0].str});
        record_bytes = std::to_string(len.integer);
    }
    const std::string msg_encoding = probe.command({"OBJECT", "ENCODING", records}).str;
    const std::string pending_encoding = probe.command({"OBJECT", "ENCODING", key("pending")}).str;
    probe.drop_queue(queue);

    const double dn = static_cast<double>(n);
    Json out;
    out["n"] = n;
    out["payload_bytes"] = payload16().size();
    out["bytes_per_msg"] = static_cast<double>(window.memory_delta()) / dn;
    out["msg_hash_bytes_per_msg"] = static_cast<double>(msg_bytes) / dn;
    out["pending_zset_bytes_per_msg"] = static_cast<double>(pending_bytes) / dn;
    out["unaccounted_bytes_per_msg"] =
        static_cast<double>(window.memory_delta() - msg_bytes - pending_bytes - small_keys) / dn;
    out["record_bytes"] = std::stoll(record_bytes);
    out["msg_encoding"] = msg_encoding;
    out["records_hash"] = records.substr(records.rfind(':') + 1);
    out["pending_encoding"] = pending_encoding;
    out["load_msgs_per_s"] = dn / wall;
    return out;
}

}  // namespace

void run_memory(Context& ctx) {
    const std::size_t n = ctx.n_or(1'000'000, 10'000);
    warm_up(ctx);
    std::vector<Json> runs;
    for (int r = 0; r < ctx.settings().runs; ++r) {
        note("memory run " + std::to_string(r + 1));
        runs.push_back(measure_memory(ctx, n));
    }
    Json line{{"mode", "memory"}, {"variant", "pending_16b"}};
    line.update(median_of_runs(runs, "bytes_per_msg"));
    apply_targets(line, {{"bytes_per_msg", false, 200.0}});
    emit(line);
}

}  // namespace delayq::bench
