// Issue 5, scenario 6: Redis at maxmemory.
//
// Already covered elsewhere, not repeated here: tests/connection_test.cpp
// FullRedisRefusesSendsWholeButStillDrains (single and batch sends refused, fetch and ack drain)
// and EvictingServerTest (allkeys-lru set at start: warning, strict refusal of ping, send and a
// Consumer, strict refusal when INFO is not allowed). This file adds the keyspace proof (DBSIZE,
// DEBUG DIGEST, SCAN) that a refused send wrote nothing, for every way to send (single, caller
// id, a retried id, batches, concurrent group-committed sends, the CLI); every operation a
// draining consumer needs, while Redis stays over its limit and with the script cache flushed;
// a Consumer and `delayq consume` draining to empty; and every evicting policy set at run time.
//
// Which scripts may run when full is decided by their shebang flags (src/lua/*.lua): send has
// none, so Redis refuses it before it runs; ack, cancel, dead_purge, dead_requeue, extend,
// fetch, nack, release and reschedule are allow-oom; get, list and stats are no-writes.
#include <atomic>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fault/limits/keyspace.hpp"
#include "support/fixture.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

constexpr long long kKiB = 1024;

class FullRedisTest : public RedisTest {
  protected:
    void set_maxmemory(long long bytes) {
        const RawReply r = test::set_maxmemory(server(), bytes);
        ASSERT_FALSE(r.is_error()) << r.str;
    }

    // Fills Redis with the queue's own messages until a send is refused, then lowers maxmemory
    // 512 KiB below what is used, so that Redis stays full when it shrinks a client's query
    // buffer or closes a connection. Returns how many messages went in.
    long long fill_with_sends(Queue& q) {
        set_maxmemory(used_memory(server()) + 2 * kKiB * kKiB);
        const std::string payload(64 * kKiB, 'p');
        for (long long stored = 0; stored < 1000; ++stored) {
            try {
                q.send(payload);
            } catch (const OutOfMemoryError&) {
                set_maxmemory(used_memory(server()) - 512 * kKiB);
                return stored;
            }
        }
        ADD_FAILURE() << "Redis never filled up";
        return -1;
    }

    // Fills Redis with unrelated keys until a write is refused, then lowers maxmemory 1 MiB
    // below what is used: the drain below frees far less than that, so Redis stays full (every
    // step is checked against a send that must still fail).
    void fill_with_keys() {
        fillers_ = test::fill_with_keys(server(), kKiB * kKiB);
        ASSERT_GT(fillers_, 0) << "Redis never filled up, or refused a write for another reason";
    }

    void free_fillers() {
        for (int i = 0; i < fillers_; ++i) server().command({"DEL", "filler:" + std::to_string(i)});
        set_maxmemory(0);
    }

    // A send must be refused, and must change nothing.
    void expect_full(Queue& q) {
        const Keyspace before = keyspace(server());
        EXPECT_THROW(q.send("probe"), OutOfMemoryError);
        EXPECT_EQ(keyspace(server()), before);
    }

    CliResult cli(const std::vector<std::string>& args) const {
        CliOptions o;
        o.env = {"DELAYQ_REDIS_URL=" + server_->url(),
                 "DELAYQ_HOME=" + (server_->dir() / "cli-home").string()};
        o.timeout = std::chrono::seconds(60);
        return run_cli(args, o);
    }

    int fillers_ = 0;
};

// Runs `send` and checks it throws OutOfMemoryError with a message that says so.
template <class Send>
void expect_refused(Send send, const char* what) {
    try {
        send();
        ADD_FAILURE() << what << ": accepted by a full Redis";
    } catch (const OutOfMemoryError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("out of memory (maxmemory reached)"), std::string::npos) << m;
        EXPECT_NE(m.find("send was refused and wrote nothing"), std::string::npos) << m;
        // Callers that catch the broader types still see it.
        EXPECT_NE(dynamic_cast<const ServerError*>(&e), nullptr);
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": not OutOfMemoryError: " << e.what();
    }
}

TEST_F(FullRedisTest, SendsFailWithAClearErrorAndWriteNothing) {
    Queue q = queue();
    q.send("kept", {.delay = 1h, .id = "keep"});
    const long long stored = fill_with_sends(q);
    ASSERT_GT(stored, 0);
    const Keyspace before = keyspace(server());
    const long long msgs = server().hlen(queue_key("q", "msg"));
    const long long pending = server().zcard(queue_key("q", "pending"));
    EXPECT_EQ(msgs, stored + 1);
    std::cout << "full after " << stored << " sends of 64 KiB: used_memory "
              << used_memory(server()) << "\n";

    expect_refused([&] { q.send("small"); }, "single send");
    expect_refused([&] { q.send("small", {.id = "new-id"}); }, "send with a caller id");
    // The script is refused before it runs, so even a retry of an existing id fails instead of
    // reporting a duplicate: the caller learns that Redis is full, not a stale answer.
    expect_refused([&] { q.send("again", {.id = "keep"}); }, "retried id");
    expect_refused(
        [&] {
            const std::vector<Message> batch{{"a", {}}, {"b", {.id = "b"}}, {"c", {.delay = 1h}}};
            q.send_batch(batch);
        },
        "batch of 3");
    expect_refused([&] { send_many(q, 1000, "x"); }, "batch of 1000");
    EXPECT_EQ(keyspace(server()), before) << describe(before);

    // Concurrent single sends through one Queue are group-committed: each caller must still get
    // its own OutOfMemoryError, and none may be half-stored.
    std::atomic<int> refused{0};
    std::atomic<int> other{0};
    std::vector<std::thread> senders;
    for (int t = 0; t < 8; ++t) {
        senders.emplace_back([&, t] {
            for (int i = 0; i < 20; ++i) {
                try {
                    q.send("c" + std::to_string(t) + "-" + std::to_string(i));
                    ++other;
                } catch (const OutOfMemoryError&) {
                    ++refused;
                } catch (const std::exception&) {
                    ++other;
                }
            }
        });
    }
    for (auto& s : senders) s.join();
    EXPECT_EQ(refused.load(), 160);
    EXPECT_EQ(other.load(), 0);

    // The command line: a runtime failure (exit 1) that says why, nothing written.
    const CliResult single = cli({"send", "q", "from the cli"});
    EXPECT_EQ(single.exit_code, 1) << single.err;
    EXPECT_NE(single.err.find("out of memory"), std::string::npos) << single.err;
    EXPECT_TRUE(single.out.empty()) << single.out;

    EXPECT_EQ(keyspace(server()), before) << describe(before);
    EXPECT_EQ(server().hlen(queue_key("q", "msg")), msgs);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), pending);
    EXPECT_EQ(admin(q).stats().totals.sent, static_cast<std::uint64_t>(stored + 1));
}

TEST_F(FullRedisTest, EveryDrainingOperationWorksWhileFull) {
    Queue q = queue();
    // Two dead letters first (so that they are the ones fetched), then the rest.
    for (const std::string id : {"d-requeue", "d-purge"}) q.send("dead", {.id = id});
    for (int i = 0; i < 2; ++i) {
        const Delivery d = fetch_one(q);
        ASSERT_EQ(leases(q).reject(lease_of(d), Reject{.error = "setup"}).status,
                  LeaseStatus::kDeadLettered);
    }
    q.send("to cancel", {.delay = 1h, .id = "s-cancel"});
    q.send("to reschedule", {.delay = 1h, .id = "s-resched"});
    std::vector<Message> ready;
    for (int i = 0; i < 40; ++i) {
        ready.push_back({std::string(512, 'r'), {.id = "r" + std::to_string(i)}});
    }
    q.send_batch(ready);
    const std::uint64_t sent = admin(q).stats().totals.sent;

    fill_with_keys();
    // Every script must also load while full (after a restart or SCRIPT FLUSH).
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    expect_full(q);

    const FetchResult f = leases(q).fetch(5, 30s);
    ASSERT_EQ(f.deliveries.size(), 5U);
    const auto& d = f.deliveries;

    EXPECT_EQ(leases(q).ack(lease_of(d[0])).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin(q).get(d[0].id()).has_value());

    const LeaseResult retried = leases(q).nack(lease_of(d[1]), Nack{.delay = 0ms, .error = "boom"});
    EXPECT_EQ(retried.status, LeaseStatus::kRetrying);
    EXPECT_EQ(admin(q).get(d[1].id())->last_error, "boom");

    const LeaseResult rejected = leases(q).reject(lease_of(d[2]), Reject{.error = "bad"});
    EXPECT_EQ(rejected.status, LeaseStatus::kDeadLettered);
    EXPECT_EQ(rejected.dead_reason, "rejected");

    const auto old_deadline = admin(q).get(d[3].id())->lease_deadline;
    const LeaseResult extended = leases(q).extend(lease_of(d[3]), 60s);
    ASSERT_EQ(extended.status, LeaseStatus::kExtended);
    EXPECT_GT(extended.at, *old_deadline);

    EXPECT_EQ(leases(q).release(lease_of(d[4])).status, LeaseStatus::kReleased);
    EXPECT_EQ(admin(q).get(d[4].id())->attempts, 0);

    EXPECT_EQ(q.cancel("s-cancel"), CancelResult::kCancelled);
    EXPECT_EQ(q.reschedule("s-resched", 0ms).status, RescheduleStatus::kRescheduled);

    const std::vector<std::string> requeue{"d-requeue"};
    EXPECT_EQ(admin(q).requeue({.ids = requeue}), 1U);
    const std::vector<std::string> purge{"d-purge"};
    EXPECT_EQ(admin(q).purge({.ids = purge}), 1U);
    EXPECT_FALSE(admin(q).get("d-purge").has_value());
    EXPECT_EQ(admin(q).requeue({.all = true}), 1U);  // the one rejected above

    // A lease that lapses while full is swept back by the next fetch; the old token is fenced.
    const Delivery lapsing = fetch_one(q, 50ms);
    wait_for_server_time_after(lapsing.delivered_at() + 50ms);
    for (const auto& taken : leases(q).fetch(1, 30s).deliveries) {  // sweeps the lapsed lease back
        EXPECT_EQ(leases(q).ack(lease_of(taken)).status, LeaseStatus::kAcked);
    }
    EXPECT_EQ(leases(q).ack(lease_of(lapsing)).status, LeaseStatus::kLost);
    EXPECT_NE(admin(q).get(lapsing.id())->last_error.find("visibility timeout"), std::string::npos);

    // Inspection is read-only and works as ever.
    EXPECT_FALSE(admin(q).list(State::kReady).messages.empty());
    EXPECT_EQ(admin(q).stats().dead, 0U);
    expect_full(q);

    EXPECT_EQ(leases(q).ack(lease_of(d[3])).status, LeaseStatus::kAcked);
    Collector<std::string> handled;
    Consumer consumer(
        leases(q),
        [&](const Delivery& delivery) -> Outcome {
            handled.add(delivery.id());
            return Ack{};
        },
        {.concurrency = 4, .max_batch = 10, .visibility_timeout = 2s, .idle_check = 100ms});
    consumer.start();
    EXPECT_TRUE(eventually([&] {
        const QueueStats s = admin(q).stats();
        return s.scheduled + s.ready + s.in_flight + s.dead == 0;
    })) << "the consumer did not drain the full Redis";
    consumer.stop();
    consumer.wait();
    EXPECT_EQ(consumer.stats().redis_errors, 0U);

    EXPECT_EQ(server().hlen(queue_key("q", "msg")), 0);
    EXPECT_EQ(server().hlen(queue_key("q", "err")), 0);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    const Totals t = admin(q).stats().totals;
    EXPECT_EQ(t.sent, sent);
    EXPECT_EQ(t.acked + t.cancelled + t.purged + t.dead_trimmed + t.orphans_removed, sent);
    expect_full(q);  // the whole drain ran without Redis ever having room
    std::cout << "drained " << handled.size() << " deliveries by the consumer while full ("
              << fillers_ << " fillers of 64 KiB, used_memory " << used_memory(server()) << ")\n";

    free_fillers();
    EXPECT_NO_THROW(q.send("room again"));
}

TEST_F(FullRedisTest, TheCommandLineDrainsAFullRedis) {
    Queue q = queue();
    q.send("dead", {.id = "dl", .max_attempts = 1});
    ASSERT_EQ(leases(q).reject(lease_of(fetch_one(q)), Reject{}).status,
              LeaseStatus::kDeadLettered);
    q.send("later", {.delay = 1h, .id = "later"});
    q.send("gone", {.delay = 1h, .id = "gone"});
    send_many(q, 20, "ready");
    fill_with_keys();
    expect_full(q);

    for (const auto& args :
         std::vector<std::vector<std::string>>{{"cancel", "q", "gone"},
                                               {"reschedule", "q", "later", "--delay", "0"},
                                               {"dead", "requeue", "q", "--all"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    }
    const CliResult consumed = cli({"consume", "q", "--max", "22", "--timeout", "20s"});
    EXPECT_EQ(consumed.exit_code, 0) << consumed.err;
    std::size_t lines = 0;
    for (char c : consumed.out) lines += c == '\n' ? 1 : 0;
    EXPECT_EQ(lines, 22U) << consumed.out;
    const CliResult purge = cli({"dead", "purge", "q", "--all"});
    EXPECT_EQ(purge.exit_code, 0) << purge.err;
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    expect_full(q);
}

// Every policy that can evict, set while the server runs. The check runs on a client's first
// connection: a lenient client warns (naming the policy and the fix) and works, a strict one
// refuses with ConfigurationError before writing anything; noeviction satisfies both.
TEST_F(FullRedisTest, EveryEvictingPolicyIsWarnedAboutOrRefused) {
    const std::vector<std::string> policies = {"allkeys-lru",  "allkeys-lfu",  "allkeys-random",
                                               "volatile-lru", "volatile-lfu", "volatile-random",
                                               "volatile-ttl"};
    set_maxmemory(512 * kKiB * kKiB);
    for (const auto& policy : policies) {
        SCOPED_TRACE(policy);
        ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory-policy", policy}).is_error());

        const Keyspace before = keyspace(server());
        Client strict(server().url(), ClientOptions{.refuse_evicting_server = true});
        try {
            strict.queue("q").send("x");
            ADD_FAILURE() << "a strict client sent to an evicting server";
        } catch (const ConfigurationError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("maxmemory-policy " + policy), std::string::npos) << m;
            EXPECT_NE(m.find("noeviction"), std::string::npos) << m;
        }
        EXPECT_EQ(keyspace(server()), before);

        testing::internal::CaptureStderr();
        std::string error;
        try {
            Client lenient(server().url());
            lenient.queue("q").send("x");
        } catch (const std::exception& e) {
            error = e.what();
        }
        const std::string logged = testing::internal::GetCapturedStderr();
        EXPECT_EQ(error, "");
        EXPECT_NE(logged.find("maxmemory-policy " + policy), std::string::npos) << logged;
        EXPECT_NE(logged.find("noeviction"), std::string::npos) << logged;

        const CliResult r = cli({"send", "q", "from the cli"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("maxmemory-policy " + policy), std::string::npos) << r.err;
    }
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}).is_error());
    Client strict(server().url(), ClientOptions{.refuse_evicting_server = true});
    EXPECT_NO_THROW(strict.queue("q").send("x"));
    EXPECT_EQ(server().zcard(queue_key("q", "pending")),
              2 * static_cast<long long>(policies.size()) + 1);
}

}  // namespace
}  // namespace delayq::test
