// Issue 5, scenario 10: a bounded soak. Producers and consumers use every path a message can
// take (single and batch sends, caller and generated ids, nack and retry, a handler that throws,
// reject then requeue then ack, reject then purge, cancel, reschedule, expiry, lapsed leases,
// extend, release, a consumer restarted mid-run) until everything is acked; then Redis must be
// back at the baseline taken after a warm-up that used the same paths.
//
// DELAYQ_SOAK_SECONDS sets how long producers run (default 10).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fault/limits/keyspace.hpp"
#include "fault/limits/soak_workload.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using soak::Ledger;
using soak::Soak;

int soak_seconds() {
    const char* text = std::getenv("DELAYQ_SOAK_SECONDS");
    const int seconds = text == nullptr ? 10 : std::atoi(text);
    return seconds < 1 ? 1 : seconds;
}

// What the test knows about each message: it must end acked exactly once, unless it was meant
// to be cancelled or purged. Messages are known by queue and id: generated ids are unique only
// within a queue (two queues' counters both track the Redis clock and can meet).
struct Baseline {
    Keyspace keys;
    long long memory = 0;  // used_memory
    long long dataset = 0;
    long long scripts = 0;
    long long key_bytes = 0;  // MEMORY USAGE of every key, summed
};

Baseline measure(const RedisServer& server) {
    Baseline b;
    EXPECT_TRUE(eventually([&] {
        return server.info_integer("clients", "connected_clients") == 1;
    })) << "connections of the library still open";
    b.keys = keyspace(server);
    for (const auto& key : b.keys.keys) {
        b.key_bytes += server.integer({"MEMORY", "USAGE", key, "SAMPLES", "0"});
    }
    long long last = -1;
    for (int i = 0; i < 100; ++i) {
        b.memory = server.info_integer("memory", "used_memory");
        if (b.memory == last) break;
        last = b.memory;
        std::this_thread::sleep_for(50ms);
    }
    b.dataset = server.info_integer("memory", "used_memory_dataset");
    b.scripts = server.info_integer("memory", "number_of_cached_scripts");
    return b;
}

const std::set<std::string> kCounters = {
    "sent",      "delivered", "acked",  "retried",      "dead_lettered",   "expired",
    "cancelled", "released",  "purged", "dead_trimmed", "orphans_removed", "requeued"};

class SoakTest : public RedisTest {
  protected:
    // Two kinds of Redis bookkeeping count in used_memory, are bounded and are not data, but
    // grow at moments that depend on timing, so they would look like a leak now and then: a
    // latency histogram of about 20 KiB per command (also those run inside scripts) on its
    // first use, which may be a rarely taken path during the soak rather than the warm-up; and
    // the slow log (up to 128 commands with their arguments), which a loaded machine fills.
    RedisServerOptions server_options() const override {
        return {.extra_args = {"--latency-tracking", "no", "--slowlog-log-slower-than", "-1"}};
    }
};

TEST_F(SoakTest, RedisReturnsToItsBaselineAfterASustainedRun) {
    // The warm-up takes every path once, so that the script cache, the queues' fixed keys
    // (seq, stats) and the stats fields exist before the baseline.
    {
        Ledger warm;
        Soak soak(client(), warm);
        ASSERT_TRUE(soak.run(1s)) << warm.missing() << " not acked in the warm-up";
    }
    client_.reset();  // closes the library's connections
    const Baseline base = measure(server());

    client_.emplace(server().url());
    Ledger ledger;
    const auto length = std::chrono::seconds(soak_seconds());
    Totals totals[2];
    {
        Soak soak(client(), ledger);
        ASSERT_TRUE(soak.run(length)) << ledger.missing() << " messages never acked";
        EXPECT_EQ(soak.failures(), 0);
        totals[0] = soak.main().stats().totals;
        totals[1] = soak.lapse().stats().totals;
    }
    EXPECT_EQ(ledger.unexpected(), 0U);
    // No faults are injected, so nothing may be handled twice.
    EXPECT_EQ(ledger.duplicates(), 0U);
    for (const Totals& t : totals) {
        EXPECT_EQ(t.sent, t.acked + t.cancelled + t.purged);
        EXPECT_EQ(t.dead_trimmed + t.orphans_removed, 0U);
    }
    client_.reset();
    const Baseline after = measure(server());

    for (const std::string name : {"soak", "soak-lapse"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(server().hlen(queue_key(name, "msg")), 0);
        EXPECT_EQ(server().hlen(queue_key(name, "err")), 0);
        EXPECT_EQ(server().zcard(queue_key(name, "pending")), 0);
        EXPECT_EQ(server().zcard(queue_key(name, "inflight")), 0);
        EXPECT_EQ(server().zcard(queue_key(name, "dead")), 0);
        EXPECT_EQ(queue_keys(name), empty_queue_keys(name));
        // Counters grow by design, but only in a fixed set of fields; the seq field of the settings
        // hash is one integer.
        for (const auto& field : server().command({"HKEYS", queue_key(name, "stats")}).elements) {
            EXPECT_TRUE(kCounters.contains(field.str)) << field.str;
        }
        EXPECT_LE(server().integer({"HSTRLEN", queue_key(name, "settings"), "seq"}), 20);
    }
    // Same keys (names; the values of seq and stats differ by design), no key in another db.
    EXPECT_EQ(after.keys.keys, base.keys.keys);
    const std::string databases = server().command({"INFO", "keyspace"}).str;
    EXPECT_EQ(databases.find("\ndb"), databases.rfind("\ndb")) << databases;
    EXPECT_NE(databases.find("db0:keys=" + std::to_string(base.keys.dbsize) + ","),
              std::string::npos)
        << databases;
    EXPECT_EQ(after.scripts, base.scripts) << "the script cache grew";
    // Memory. The four keys left may grow by a few bytes by design (the stats counters have
    // more digits; MEMORY USAGE rounds to allocator size classes): 256 bytes is well above that
    // and below one leaked record. Redis as a whole may differ by internal bookkeeping that is
    // not data (up to about 1 KiB was measured in 12 loaded runs, with the two noisy kinds off, see
    // SoakTest): 8 KiB is far above that and far below what the run moved through Redis, so a
    // leak of records, leases, tokens or error texts anywhere, even of a small fraction of them,
    // would exceed it. Leaks inside the queue's keys are caught exactly by the checks above.
    EXPECT_LE(after.key_bytes, base.key_bytes + 256);
    constexpr long long kTolerance = 8 * 1024;
    EXPECT_LE(after.memory, base.memory + kTolerance)
        << "used_memory " << base.memory << " -> " << after.memory;
    // used_memory_dataset is only printed: it is used_memory minus Redis's overhead estimate,
    // which moves with bookkeeping such as Redis 7.0 resizing a client's reply buffer (a clean
    // CI run measured dataset +17 KiB with used_memory +64 B and every key check passing).

    const Totals& t = totals[0];
    const Totals& l = totals[1];
    std::cout << "soak " << length.count() << " s: " << ledger.expected() << " messages acked ("
              << t.sent + l.sent << " sent, " << t.delivered + l.delivered << " deliveries, "
              << t.retried << " retried, " << l.retried << " lapsed, " << t.dead_lettered
              << " dead-lettered (" << t.expired << " expired), " << t.requeued << " requeued, "
              << t.purged << " purged, " << t.cancelled << " cancelled, " << t.released + l.released
              << " released)\n"
              << "used_memory: baseline " << base.memory << " B, after " << after.memory
              << " B; dataset " << base.dataset << " -> " << after.dataset
              << " B; MEMORY USAGE of the keys " << base.key_bytes << " -> " << after.key_bytes
              << " B; keys " << describe(after.keys) << "\n";
}

}  // namespace
}  // namespace delayq::test
