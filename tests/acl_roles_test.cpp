// The roles `delayq acl` prints, applied to a real Redis: each does its work on its queues,
// Redis refuses it everything else (PermissionError naming the command), and a reader changes
// nothing at all.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

constexpr const char* kPassword = "role-secret";

class AclRolesTest : public RedisTest {
  protected:
    // A user with exactly `role` on `patterns`, as an administrator would apply it.
    Client role_client(const std::string& user, AclRole role,
                       const std::vector<std::string>& patterns) {
        std::vector<QueuePattern> parsed;
        for (const auto& p : patterns) parsed.push_back(*QueuePattern::parse(p));
        for (const auto& command : acl_commands(user, role, parsed)) {
            const RawReply r = server().command(command);
            EXPECT_FALSE(r.is_error()) << redis_cli_line(command) << ": " << r.str;
        }
        EXPECT_FALSE(
            server().command({"ACL", "SETUSER", user, std::string(">") + kPassword}).is_error());
        return Client("redis://" + user + "@127.0.0.1:" + std::to_string(server().port()),
                      ClientOptions{.password = kPassword});
    }

    // DBSIZE and a DUMP of every key: any write changes it.
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> out;
        out["DBSIZE"] = std::to_string(server_->dbsize());
        for (const auto& key : server_->keys("*")) out[key] = server_->command({"DUMP", key}).str;
        return out;
    }

    // A queue with a message in each state: two ready, one scheduled, one in flight, one dead.
    Delivery populate(const std::string& name) {
        Queue q = queue(name);
        q.send("dead");
        Delivery d = fetch_one(q);
        EXPECT_EQ(leases(q).reject(lease_of(d), {.error = "bad"}).status,
                  LeaseStatus::kDeadLettered);
        q.send("leased");
        Delivery leased = fetch_one(q);
        q.send("ready-1", {.id = "r1"});
        q.send("ready-2");
        q.send("later", {.delay = 1h, .id = "later"});
        return leased;
    }
};

// `command` is EVALSHA or EVALSHA_RO; a script not yet cached on the server is refused as EVAL
// (or EVAL_RO), the command that then carries it, and a call to a loaded function library as
// FCALL (FCALL_RO).
template <class F>
void expect_refused(const std::string& what, const std::string& command, F&& f) {
    const std::string eval = command == "EVALSHA" ? "EVAL" : "EVAL_RO";
    const std::string fcall = command == "EVALSHA" ? "FCALL" : "FCALL_RO";
    try {
        f();
        ADD_FAILURE() << what << ": not refused";
    } catch (const PermissionError& e) {
        EXPECT_TRUE(e.command() == command || e.command() == eval || e.command() == fcall)
            << what << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("Redis refused " + e.command() + " "),
                  std::string::npos)
            << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
    }
}

TEST_F(AclRolesTest, ReaderReadsAndWaitsOnItsQueues) {
    populate("orders-1");
    Client reader = role_client("dash", AclRole::kReader, {"orders*"});
    reader.ping();
    EXPECT_GT(ms(reader.server_time()), 0);
    QueueAdmin a = reader.admin("orders-1");
    const QueueStats s = a.stats();
    EXPECT_EQ(s.ready, 2u);
    EXPECT_EQ(s.scheduled, 1u);
    EXPECT_EQ(s.in_flight, 1u);
    EXPECT_EQ(s.dead, 1u);
    EXPECT_EQ(a.list(State::kReady).messages.size(), 2u);
    EXPECT_EQ(a.list(State::kScheduled).messages.size(), 1u);
    EXPECT_EQ(a.list(State::kInFlight).messages.size(), 1u);
    EXPECT_EQ(a.list(State::kDead).messages.size(), 1u);
    EXPECT_EQ(a.get("r1")->payload, "ready-1");
    EXPECT_TRUE(a.history(TimePoint{}).empty());
    EXPECT_EQ(reader.queues(), std::vector<std::string>{"orders-1"});

    // On an empty queue a send signals the wake channel.
    Waiter w(reader.leases("orders-2"), {.idle_check = 1h});
    w.start();
    ASSERT_TRUE(eventually([&] { return w.stats().subscriptions >= 1 && w.stats().fired >= 1; }));
    const std::uint64_t seen = w.epoch();
    queue("orders-2").send("now");
    EXPECT_TRUE(w.wait(seen, std::chrono::steady_clock::now() + kEventDeadline));
    EXPECT_GE(w.stats().signals, 1u);
    EXPECT_EQ(w.stats().redis_errors, 0u);
}

TEST_F(AclRolesTest, ReaderChangesNothing) {
    const Delivery leased = populate("orders");
    Client reader = role_client("dash", AclRole::kReader, {"orders"});
    Queue q = reader.queue("orders");
    QueueAdmin a = reader.admin("orders");
    Leases l = reader.leases("orders");
    const auto before = snapshot();
    const std::vector<std::pair<std::string, std::function<void()>>> writes = {
        {"send", [&] { q.send("x"); }},
        {"send with id", [&] { q.send("x", {.id = "new"}); }},
        {"cancel", [&] { q.cancel("r1"); }},
        {"reschedule", [&] { q.reschedule("later", 2h); }},
        {"fetch", [&] { l.fetch(10, 30s); }},
        {"ack", [&] { l.ack(lease_of(leased)); }},
        {"nack", [&] { l.nack(lease_of(leased), {}); }},
        {"reject", [&] { l.reject(lease_of(leased), {}); }},
        {"extend", [&] { l.extend(lease_of(leased), 1h); }},
        {"release", [&] { l.release(lease_of(leased)); }},
        {"settings", [&] { a.update_settings({.max_attempts = 3}); }},
        {"pause", [&] { a.pause(); }},
        {"resume", [&] { a.resume(); }},
        {"requeue", [&] { a.requeue({.all = true}); }},
        {"purge", [&] { a.purge({.all = true}); }},
        {"delete", [&] { a.delete_queue(true); }},
    };
    for (const auto& [what, write] : writes) expect_refused(what, "EVALSHA", write);
    EXPECT_EQ(snapshot(), before);
}

TEST_F(AclRolesTest, WriterSendsConsumesAndManagesButCannotDelete) {
    Client writer = role_client("shop", AclRole::kWriter, {"orders*"});
    Queue q = writer.queue("orders");
    Leases l = writer.leases("orders");
    QueueAdmin a = writer.admin("orders");
    q.send("one", {.id = "one"});
    q.send("two", {.id = "two"});
    q.send("three", {.delay = 1h, .id = "three"});
    EXPECT_EQ(q.reschedule("three", 2h).status, RescheduleStatus::kRescheduled);
    EXPECT_EQ(q.cancel("three"), CancelResult::kCancelled);
    FetchResult got = l.fetch(2, 30s);
    ASSERT_EQ(got.deliveries.size(), 2u);
    EXPECT_EQ(l.extend(lease_of(got.deliveries[0]), 1min).status, LeaseStatus::kExtended);
    EXPECT_EQ(l.ack(lease_of(got.deliveries[0])).status, LeaseStatus::kAcked);
    EXPECT_EQ(l.reject(lease_of(got.deliveries[1]), {.error = "no"}).status,
              LeaseStatus::kDeadLettered);
    EXPECT_EQ(a.requeue({.all = true}), 1u);
    FetchResult again;
    ASSERT_TRUE(eventually([&] {
        again = l.fetch(1, 30s);
        return !again.deliveries.empty();
    }));
    EXPECT_EQ(l.release(lease_of(again.deliveries.front())).status, LeaseStatus::kReleased);
    EXPECT_EQ(a.update_settings({.max_attempts = 3}).max_attempts, 3);
    a.pause();
    a.resume();
    // A server of the writer role samples the history (and trims it): every command it needs
    // is the role's. A stale point makes the trim run.
    ASSERT_EQ(server().integer({"ZADD", queue_key("orders", "history"), "1", "stale"}), 1);
    EXPECT_TRUE(a.record_history());
    EXPECT_EQ(a.history(TimePoint{}).size(), 1u);
    EXPECT_EQ(a.stats().ready, 1u);

    const auto before = snapshot();
    expect_refused("delete", "EVALSHA", [&] { a.delete_queue(true); });
    EXPECT_EQ(snapshot(), before);
}

TEST_F(AclRolesTest, AdminDeletesQueues) {
    populate("orders");
    Client admin_client = role_client("ops", AclRole::kAdmin, {"orders"});
    QueueAdmin a = admin_client.admin("orders");
    EXPECT_EQ(a.update_settings({.dead_max_count = 10}).dead_max_count, 10u);
    a.pause();
    EXPECT_TRUE(a.settings().paused);
    EXPECT_EQ(a.purge({.all = true}), 1u);
    EXPECT_EQ(a.delete_queue(true).status, DeleteStatus::kDeleted);
    EXPECT_EQ(queue_keys("orders"), std::vector<std::string>{});
}

TEST_F(AclRolesTest, AUserForOrdersCannotReadOrWriteBilling) {
    populate("billing");
    const auto before = snapshot();
    for (const AclRole role : {AclRole::kReader, AclRole::kWriter, AclRole::kAdmin}) {
        const std::string user = "u-" + std::string(to_string(role));
        Client c = role_client(user, role, {"orders*"});
        const std::string write = "EVALSHA";
        expect_refused(user + " stats", "EVALSHA_RO", [&] { c.admin("billing").stats(); });
        expect_refused(user + " get", "EVALSHA_RO", [&] { c.admin("billing").get("r1"); });
        expect_refused(user + " list", "EVALSHA_RO",
                       [&] { c.admin("billing").list(State::kReady); });
        expect_refused(user + " send", write, [&] { c.queue("billing").send("x"); });
        expect_refused(user + " fetch", write, [&] { c.leases("billing").fetch(1, 30s); });
        expect_refused(user + " delete", write, [&] { c.admin("billing").delete_queue(true); });
        // Not even a queue whose name merely starts like the pattern's literal would.
        expect_refused(user + " near miss", "EVALSHA_RO", [&] { c.admin("order").stats(); });

        // The waiter retries (and counts) a refused subscription; it never throws.
        Waiter w(c.leases("billing"), {.idle_check = 1h});
        w.start();
        EXPECT_TRUE(eventually([&] { return w.stats().redis_errors >= 1; }));
        EXPECT_EQ(w.stats().subscriptions, 0u);
    }
    EXPECT_EQ(snapshot(), before);
}

TEST_F(AclRolesTest, GlobCharactersInNamesAreLiteral) {
    Client c = role_client("odd", AclRole::kWriter, {"a\\*", "b?[x]\\\\*"});
    c.queue("a*").send("star");
    c.queue("b?[x]\\tail").send("prefix");
    expect_refused("a* as a glob", "EVALSHA", [&] { c.queue("ab").send("x"); });
    expect_refused("? as a glob", "EVALSHA", [&] { c.queue("bb[x]\\").send("x"); });
    expect_refused("[x] as a glob", "EVALSHA", [&] { c.queue("b?x\\").send("x"); });
    EXPECT_EQ(server().zcard(queue_key("a*", "pending")), 1);
}

// The HTTP service's shared lease key, as a Redis user made by `delayq acl` reaches it: refused
// without acl_shared_secret_command, read (or made) with it, the same bytes for every server.
TEST_F(AclRolesTest, TheSharedSecretNeedsItsOwnGrant) {
    const std::string mine = client().shared_secret();
    Client api = role_client("api", AclRole::kWriter, {"*"});
    EXPECT_THROW(api.shared_secret(), PermissionError);
    const auto grant = acl_shared_secret_command("api");
    ASSERT_FALSE(server().command(grant).is_error()) << redis_cli_line(grant);
    EXPECT_EQ(api.shared_secret(), mine);
    EXPECT_EQ(mine.size(), 32U);
}

}  // namespace
}  // namespace delayq::test

namespace delayq::test {
namespace {

// Schedules: a writer declares them and a Scheduler of the writer claims them (the registry key
// is granted with the queues'); a reader sees them and changes nothing.
TEST_F(AclRolesTest, AWriterSchedulesAndClaimsAReaderOnlyLooks) {
    Client writer = role_client("w", AclRole::kWriter, {"jobs-*"});
    ScheduleSpec spec;
    spec.every = std::chrono::seconds(1);
    spec.payload = "tick";
    auto schedules = writer.schedules("jobs-a");
    ASSERT_EQ(schedules.add("tick", spec).status, PutStatus::kCreated);
    EXPECT_EQ(writer.schedule_queues(), std::vector<std::string>{"jobs-a"});
    Scheduler scheduler(writer, SchedulerOptions{.poll = std::chrono::milliseconds(100),
                                                 .discover = std::chrono::milliseconds(100)});
    scheduler.start();
    ASSERT_TRUE(eventually([&] { return schedules.get("tick")->runs >= 2; }));
    scheduler.stop();
    scheduler.wait();
    EXPECT_EQ(scheduler.stats().redis_errors, 0U);
    EXPECT_THROW(writer.schedules("other").add("tick", spec), PermissionError);

    Client reader = role_client("r", AclRole::kReader, {"jobs-*"});
    const auto before = snapshot();
    auto read_only = reader.schedules("jobs-a");
    EXPECT_TRUE(read_only.get("tick"));
    EXPECT_EQ(read_only.list().schedules.size(), 1U);
    EXPECT_EQ(reader.schedule_queues(), std::vector<std::string>{"jobs-a"});
    EXPECT_THROW(read_only.upsert("tick", spec), PermissionError);
    EXPECT_THROW(read_only.pause("tick"), PermissionError);
    EXPECT_EQ(snapshot(), before);
}

}  // namespace
}  // namespace delayq::test

namespace delayq::test {
namespace {

// Push targets: an admin sets them; a pusher reads them whole and leases within their limits;
// a writer and a reader see them without their credentials and cannot read those.
TEST_F(AclRolesTest, OnlyAPusherReadsAPushTargetsCredentialsAndOnlyAnAdminSetsThem) {
    PushTarget target;
    target.url = "https://hooks.example.com/in";
    target.headers = {{"Authorization", "Bearer s3cr3t"}};
    target.secrets = {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"};

    Client admin_client = role_client("ops", AclRole::kAdmin, {"hooks-*"});
    ASSERT_EQ(admin_client.push_targets("hooks-a").set(target), PushSetStatus::kCreated);

    Client pusher = role_client("hook", AclRole::kPusher, {"hooks-*"});
    const auto whole = pusher.push_targets("hooks-a").read_for_pusher();
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->target, target);
    admin_client.queue("hooks-a").send("x");
    EXPECT_EQ(pusher.push_targets("hooks-a").lease(10).fetch.deliveries.size(), 1U);
    pusher.push_targets("hooks-a").record(200, "");
    expect_refused("pusher set", "EVALSHA", [&] { pusher.push_targets("hooks-a").set(target); });
    expect_refused("pusher remove", "EVALSHA", [&] { pusher.push_targets("hooks-a").remove(); });

    Client writer = role_client("shop", AclRole::kWriter, {"hooks-*"});
    Client reader = role_client("dash", AclRole::kReader, {"hooks-*"});
    const auto before = snapshot();
    for (Client* c : {&writer, &reader}) {
        const auto info = c->push_targets("hooks-a").get();
        ASSERT_TRUE(info.has_value());
        EXPECT_EQ(info->header_names, std::vector<std::string>{"Authorization"});
        expect_refused("read credentials", "EVALSHA_RO",
                       [&] { c->push_targets("hooks-a").read_for_pusher(); });
        // A reader is refused at the index of queues with targets, before the script.
        expect_refused("set", c == &reader ? "ZADD" : "EVALSHA",
                       [&] { c->push_targets("hooks-a").set(target); });
    }
    EXPECT_EQ(snapshot(), before);
    EXPECT_TRUE(admin_client.push_targets("hooks-a").remove());
}

}  // namespace
}  // namespace delayq::test
