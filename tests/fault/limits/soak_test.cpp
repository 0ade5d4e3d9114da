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
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

int soak_seconds() {
    const char* text = std::getenv("DELAYQ_SOAK_SECONDS");
    const int seconds = text == nullptr ? 10 : std::atoi(text);
    return seconds < 1 ? 1 : seconds;
}

// What the test knows about each message: it must end acked exactly once, unless it was meant
// to be cancelled or purged. Messages are known by queue and id: generated ids are unique only
// within a queue (two queues' counters both track the Redis clock and can meet).
class Ledger {
  public:
    void expect(const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        expected_.insert(key(q, id));
    }
    void acked(const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        if (++acks_[key(q, id)] > 1) ++duplicates_;
    }
    // True the first time for a message: to reject, release or throw only once per message.
    bool first_time(const std::string& what, const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        return once_.insert(what + "\n" + key(q, id)).second;
    }
    std::size_t missing() const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& id : expected_) n += acks_.contains(id) ? 0 : 1;
        return n;
    }
    std::size_t unexpected() const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& [id, count] : acks_) n += expected_.contains(id) ? 0 : 1;
        return n;
    }
    std::size_t duplicates() const {
        std::lock_guard lock(mutex_);
        return duplicates_;
    }
    std::size_t expected() const {
        std::lock_guard lock(mutex_);
        return expected_.size();
    }

  private:
    // A newline is in no queue name or id.
    static std::string key(const Queue& q, const std::string& id) { return q.name() + "\n" + id; }

    mutable std::mutex mutex_;
    std::unordered_set<std::string> expected_;
    std::unordered_map<std::string, int> acks_;
    std::unordered_set<std::string> once_;
    std::size_t duplicates_ = 0;
};

// The handler of the main queue; a message's payload says how it is to be treated.
Outcome handle(Ledger& ledger, const Queue& q, const Delivery& d) {
    const std::string& kind = d.payload();
    if (kind == "nack" && d.attempt() < 3) return Nack{.delay = 5ms, .error = "not yet"};
    if (kind == "throw" && ledger.first_time("throw", q, d.id())) {
        throw std::runtime_error("handler failed once");
    }
    if (kind == "reject" && ledger.first_time("reject", q, d.id())) return Reject{.error = "no"};
    if (kind == "purge") return Reject{.error = "to be purged"};
    ledger.acked(q, d.id());
    return Ack{};
}

class Soak {
  public:
    Soak(Client& client, Ledger& ledger)
        : main_(client.queue("soak")),
          lapse_(client.queue("soak-lapse")),
          main_admin_(client.admin("soak")),
          lapse_admin_(client.admin("soak-lapse")),
          main_leases_(client.leases("soak")),
          lapse_leases_(client.leases("soak-lapse")),
          ledger_(ledger) {}

    // Producers run for `length`; then waits until every expected message is acked.
    bool run(std::chrono::milliseconds length) {
        stop_ = false;
        start_consumer(0);
        start_consumer(1);
        std::vector<std::thread> threads;
        for (int p = 0; p < 2; ++p) {
            threads.emplace_back([this, p, length] { guarded([&] { produce(p, length); }); });
        }
        threads.emplace_back([this] { guarded([&] { lapse_handler(); }); });
        threads.emplace_back([this] { guarded([&] { janitor(); }); });
        // Halfway: one consumer stops (handing back what it had prefetched) and a new one starts.
        std::this_thread::sleep_for(length / 2);
        consumers_[1].reset();
        start_consumer(1);
        threads[0].join();
        threads[1].join();
        const bool drained = eventually(
            [&] { return ledger_.missing() == 0 && empty(main_admin_) && empty(lapse_admin_); },
            90s);
        stop_ = true;
        for (std::size_t i = 2; i < threads.size(); ++i) threads[i].join();
        consumers_[0].reset();
        consumers_[1].reset();
        return drained;
    }

    QueueAdmin& main() { return main_admin_; }
    QueueAdmin& lapse() { return lapse_admin_; }
    // Calls whose answer contradicted the test's own use of the queue (a cancel that did not
    // cancel, a lease lost without a fault...).
    int failures() const { return failures_.load(); }

  private:
    // An exception in a test thread is a failure of the run, not a crash of the test binary.
    template <class Body>
    void guarded(Body body) {
        try {
            body();
        } catch (const std::exception& e) {
            ++failures_;
            std::cerr << "soak thread failed: " << e.what() << "\n";
        }
    }

    static bool empty(QueueAdmin& admin) {
        const QueueStats s = admin.stats();
        return s.scheduled + s.ready + s.in_flight + s.dead == 0;
    }

    void start_consumer(int slot) {
        consumers_[slot] = std::make_unique<Consumer>(
            main_leases_, [this](const Delivery& d) { return handle(ledger_, main_, d); },
            ConsumerOptions{.concurrency = 4,
                            .prefetch = 8,
                            .max_batch = 50,
                            .visibility_timeout = 10s,
                            .backoff = {.initial = 5ms, .max = 50ms},
                            .idle_check = 200ms});
        consumers_[slot]->start();
    }

    void produce(int p, std::chrono::milliseconds length) {
        std::mt19937 rng(static_cast<unsigned>(p + 1));
        std::uniform_int_distribution<int> small_delay(0, 20);
        const auto end = std::chrono::steady_clock::now() + length;
        for (int i = 0; std::chrono::steady_clock::now() < end; ++i) {
            const std::string tag = "p" + std::to_string(p) + "-" + std::to_string(i);
            switch (i % 10) {
                case 0:
                    ledger_.expect(main_, main_.send("ack").id);
                    break;
                case 1:
                    ledger_.expect(main_, main_.send("ack", {.id = tag}).id);
                    break;
                case 2: {
                    std::vector<Message> batch;
                    for (int k = 0; k < 8; ++k) {
                        const char* kind = k % 3 == 0 ? "ack" : k % 3 == 1 ? "nack" : "throw";
                        batch.push_back(
                            {kind,
                             {.id = k % 2 == 0 ? std::optional(tag + "-" + std::to_string(k))
                                               : std::nullopt}});
                    }
                    for (const auto& r : main_.send_batch(batch)) ledger_.expect(main_, r.id);
                    break;
                }
                case 3:
                    ledger_.expect(main_,
                                   main_.send("nack", {.delay = Duration(small_delay(rng))}).id);
                    break;
                case 4:
                    ledger_.expect(main_, main_.send("throw").id);
                    break;
                case 5:
                    ledger_.expect(main_, main_.send("reject", {.id = tag}).id);
                    break;
                case 6:
                    main_.send("purge");  // rejected every time; the janitor purges it
                    break;
                case 7: {
                    const SendResult s = main_.send("cancelled", {.delay = 1h, .id = tag});
                    if (main_.cancel(s.id) != CancelResult::kCancelled) ++failures_;
                    break;
                }
                case 8: {
                    const SendResult s = main_.send("ack", {.delay = 1h});
                    ledger_.expect(main_, s.id);
                    if (main_.reschedule(s.id, Duration(small_delay(rng))).status !=
                        RescheduleStatus::kRescheduled) {
                        ++failures_;
                    }
                    break;
                }
                case 9:
                    // Expires unless fetched within 1 ms; the janitor requeues it if it did.
                    ledger_.expect(main_, main_.send("expire", {.expire_after = 1ms}).id);
                    break;
            }
            ledger_.expect(
                lapse_,
                lapse_.send("lapse", {.id = i % 2 == 0 ? std::optional(tag) : std::nullopt}).id);
            std::this_thread::sleep_for(2ms);
        }
    }

    // The lapse queue, handled with the low-level calls: a first delivery is abandoned so that
    // its lease lapses and the message comes back; later ones are extended or released once,
    // then acked.
    void lapse_handler() {
        while (!stop_) {
            const FetchResult f = lapse_leases_.fetch(20, 30ms);
            for (const auto& d : f.deliveries) {
                if (d.attempt() == 1) continue;  // abandoned: the lease lapses
                if (ledger_.first_time("release", lapse_, d.id())) {
                    if (lapse_leases_.release(d.lease()).lost()) ++failures_;
                    continue;
                }
                if (lapse_leases_.extend(d.lease(), 5s).lost()) ++failures_;
                if (lapse_leases_.ack(d.lease()).status != LeaseStatus::kAcked) ++failures_;
                ledger_.acked(lapse_, d.id());
            }
            if (f.deliveries.empty()) std::this_thread::sleep_for(5ms);
        }
    }

    // Requeues dead letters (rejected once, or expired) and purges the ones meant for it.
    void janitor() {
        while (!stop_) {
            std::vector<std::string> requeue;
            std::vector<std::string> purge;
            for (const auto& m : main_admin_.list(State::kDead, {.limit = 1000}).messages) {
                (m.payload == "purge" ? purge : requeue).push_back(m.id);
            }
            if (!requeue.empty()) main_admin_.requeue({.ids = requeue});
            if (!purge.empty()) main_admin_.purge({.ids = purge});
            std::this_thread::sleep_for(50ms);
        }
    }

    Queue main_;
    Queue lapse_;
    QueueAdmin main_admin_;
    QueueAdmin lapse_admin_;
    Leases main_leases_;
    Leases lapse_leases_;
    Ledger& ledger_;
    std::unique_ptr<Consumer> consumers_[2];
    std::atomic<bool> stop_{false};
    std::atomic<int> failures_{0};
};

// The state Redis must return to. Memory: used_memory minus client buffers (the library's pool
// and the consumers' connections vary in number and are not data), read once it has stopped
// moving.
// The state Redis must return to, read when no client but the reading one is connected (every
// connection holds buffers that are not data) and once used_memory has stopped moving.
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
        // Counters grow by design, but only in a fixed set of fields; seq is one integer.
        for (const auto& field : server().command({"HKEYS", queue_key(name, "stats")}).elements) {
            EXPECT_TRUE(kCounters.contains(field.str)) << field.str;
        }
        EXPECT_LE(server().integer({"STRLEN", queue_key(name, "seq")}), 20);
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
