// The library on a real Redis Cluster: every operation on queues whose slots sit on different
// primaries, through one Client made from the seeds, and the calls that follow a queue's slot
// when it moves (MOVED), while it moves (TRYAGAIN until the move ends), and after a failover.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/redis_cluster.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

// One cluster for the tests that change no slot and no role; each uses queues of its own.
class ClusterQueueTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        cluster_ = std::make_unique<RedisCluster>(RedisClusterOptions{.replicas_per_primary = 0});
    }
    static void TearDownTestSuite() { cluster_.reset(); }
    static RedisCluster& cluster() { return *cluster_; }

    // One queue on each primary, named after the test.
    std::vector<std::string> queues_on_each(const std::string& stem) {
        std::vector<std::string> out;
        for (std::size_t p : cluster().primaries())
            out.push_back(cluster().name_served_by(p, stem));
        return out;
    }

  private:
    static inline std::unique_ptr<RedisCluster> cluster_;
};

TEST_F(ClusterQueueTest, EveryOperationWorksOnQueuesOfEveryPrimary) {
    Client client(cluster().seeds_url());
    const auto names = queues_on_each("ops");
    ASSERT_EQ(names.size(), 3U);
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        Queue q = client.queue(name);
        QueueAdmin admin = client.admin(name);
        Leases leases = client.leases(name);
        const SendResult a = q.send("a");
        const SendResult later = q.send("later", {.delay = 1h});
        const auto batch = send_many(q, 3, "b");
        ASSERT_EQ(batch.size(), 3U);
        ASSERT_TRUE(admin.get(a.id).has_value());
        EXPECT_EQ(admin.get(a.id)->payload, "a");
        EXPECT_EQ(q.reschedule(later.id, 2h).status, RescheduleStatus::kRescheduled);
        EXPECT_EQ(q.cancel(later.id), CancelResult::kCancelled);
        EXPECT_EQ(admin.stats().scheduled + admin.stats().ready, 4U);
        const FetchResult f = leases.fetch(10, 30s);
        ASSERT_EQ(f.deliveries.size(), 4U);
        EXPECT_EQ(leases.ack(f.deliveries[0].lease()).status, LeaseStatus::kAcked);
        EXPECT_EQ(leases.nack(f.deliveries[1].lease(), Nack{.delay = 0ms}).status,
                  LeaseStatus::kRetrying);
        EXPECT_EQ(leases.release(lease_of(std::span(f.deliveries).subspan(2))).size(), 2U);
        EXPECT_EQ(admin.stats().totals.acked, 1U);
    }
    // Queues are found on every primary.
    const auto listed = client.queues();
    for (const std::string& name : names) {
        EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end()) << name;
    }
}

TEST_F(ClusterQueueTest, SendsAsyncAndConsumersReachEveryPrimary) {
    Client client(cluster().seeds_url());
    const auto names = queues_on_each("consume");
    std::map<std::string, std::atomic<int>> got;
    std::vector<std::unique_ptr<Consumer>> consumers;
    for (const std::string& name : names) {
        got[name] = 0;
        // Without the idle check: only the wake channel on the queue's own node, or the aim at
        // a due time, can make a consumer fetch.
        consumers.push_back(std::make_unique<Consumer>(
            client.leases(name),
            [&got, name](const Delivery&) -> Outcome {
                ++got[name];
                return Ack{};
            },
            without_idle_polling()));
        consumers.back()->start();
    }
    std::vector<std::future<SendResult>> sent;
    for (const std::string& name : names) {
        Queue q = client.queue(name);
        for (int i = 0; i < 20; ++i) sent.push_back(q.send_async("m" + std::to_string(i)));
    }
    for (auto& f : sent) EXPECT_FALSE(f.get().id.empty());
    for (const std::string& name : names) {
        EXPECT_TRUE(eventually([&] { return got[name].load() == 20; })) << name;
    }
    for (auto& c : consumers) c->stop();
}

// The roles `delayq acl` prints are enough for a cluster client: discovery (INFO, CLUSTER
// SHARDS) and the queue's calls, with the users made alike on every primary, as an operator
// does.
TEST_F(ClusterQueueTest, AWriterRoleUserRunsOnTheCluster) {
    const std::string name = cluster().name_served_by(2, "acl");
    const std::string user = "cluster-writer";
    for (std::size_t p : cluster().primaries()) {
        for (const auto& command :
             acl_commands(user, AclRole::kWriter, {*QueuePattern::parse(name)})) {
            const RawReply r = cluster().node(p).command(command);
            ASSERT_FALSE(r.is_error()) << redis_cli_line(command) << ": " << r.str;
        }
        ASSERT_FALSE(cluster().node(p).command({"ACL", "SETUSER", user, ">pw"}).is_error());
    }
    const std::string seeds = cluster().seeds_url();
    Client client("redis://" + user + ":pw@" + seeds.substr(8));
    Queue q = client.queue(name);
    const SendResult sent = q.send("x");
    const FetchResult f = client.leases(name).fetch(1, 30s);
    ASSERT_EQ(f.deliveries.size(), 1U);
    EXPECT_EQ(f.deliveries[0].id(), sent.id);
    EXPECT_EQ(client.leases(name).ack(f.deliveries[0].lease()).status, LeaseStatus::kAcked);
    // Another queue's keys stay out of its reach, wherever their slot is.
    EXPECT_THROW(client.queue(cluster().name_served_by(0, "other")).send("x"), PermissionError);
}

TEST_F(ClusterQueueTest, OneDeadSeedDoesNotStopAStart) {
    const std::string url = "redis://127.0.0.1:1," + cluster().seeds_url().substr(8);
    Client client(url);
    Queue q = client.queue(cluster().name_served_by(0, "seed"));
    EXPECT_FALSE(q.send("x").id.empty());
}

// Each primary runs its own slots' calls, so the library's status is every primary's.
TEST_F(ClusterQueueTest, FunctionsStatusAndLoadCoverEveryPrimary) {
    Client client(cluster().seeds_url());
    const FunctionAdmin functions = client.functions();
    functions.load();
    const std::size_t bare = cluster().primaries().back();
    ASSERT_EQ(cluster().node(bare).command({"FUNCTION", "DELETE", functions.status().library}).str,
              "OK");
    const FunctionsStatus missing = functions.status();
    EXPECT_FALSE(missing.loaded);
    EXPECT_EQ(missing.missing_on,
              std::vector<std::string>{"127.0.0.1:" + std::to_string(cluster().node(bare).port())});
    ASSERT_EQ(missing.libraries.size(), 1U);  // still on the other primaries
    EXPECT_TRUE(missing.libraries[0].code_matches);

    EXPECT_EQ(functions.load().status, LoadStatus::kLoaded);
    const FunctionsStatus loaded = functions.status();
    EXPECT_TRUE(loaded.loaded);
    EXPECT_TRUE(loaded.missing_on.empty());
    EXPECT_EQ(client.engine().mode, ScriptEngine::kFunctions);
}

// The dashboard's Redis panel (GET /v1/redis) shows every primary of a cluster, each its own.
TEST_F(ClusterQueueTest, RedisInfoNamesEveryPrimaryWithItsOwnFigures) {
    Client client(cluster().seeds_url());
    std::set<std::string> expected;
    for (std::size_t p : cluster().primaries()) {
        expected.insert("127.0.0.1:" + std::to_string(cluster().node(p).port()));
    }
    // One primary told apart by a policy of its own: its figures are read from it.
    const std::size_t odd = cluster().primaries().front();
    const std::string odd_address = "127.0.0.1:" + std::to_string(cluster().node(odd).port());
    ASSERT_EQ(cluster().node(odd).command({"CONFIG", "SET", "maxmemory", "1gb"}).str, "OK");
    const std::vector<RedisNodeInfo> nodes = client.redis_info();
    cluster().node(odd).command({"CONFIG", "SET", "maxmemory", "0"});
    std::set<std::string> seen;
    for (const RedisNodeInfo& n : nodes) {
        SCOPED_TRACE(n.address);
        seen.insert(n.address);
        EXPECT_FALSE(n.version.empty());
        EXPECT_GT(n.used_memory, 0U);
        EXPECT_EQ(n.maxmemory_policy, "noeviction");
        EXPECT_FALSE(n.evicts);
        EXPECT_GE(n.connected_clients, 1U);
        EXPECT_EQ(n.maxmemory, n.address == odd_address ? 1024ULL * 1024 * 1024 : 0U);
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(nodes.size(), expected.size());
}

// The server check (version, maxmemory-policy) runs on every node a client reaches, not only
// the first: one evicting primary is refused where it serves, and only there.
TEST_F(ClusterQueueTest, EachPrimaryIsCheckedBeforeItIsUsed) {
    const std::size_t evicting = cluster().primaries().back();
    RedisServer& node = cluster().node(evicting);
    ASSERT_FALSE(node.command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}).is_error());
    ClientOptions options;
    options.refuse_evicting_server = true;
    {
        Client client(cluster().seeds_url(), options);
        EXPECT_FALSE(client.queue(cluster().name_served_by(0, "checked")).send("x").id.empty());
        const std::string refused = cluster().name_served_by(evicting, "checked");
        EXPECT_THROW(client.queue(refused).send("x"), ConfigurationError);
        EXPECT_EQ(node.command({"EXISTS", queue_key(refused, "pending")}).integer, 0);
    }
    ASSERT_FALSE(node.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}).is_error());
}

// A TLS-only cluster: every primary the client discovers is reached over TLS, its certificate
// checked against the address the cluster announces (127.0.0.1, in the certificate's names).
TEST(ClusterTlsTest, EveryPrimaryIsReachedOverTlsAndItsCertificateChecked) {
    const TestCertificates certificates;
    RedisCluster cluster(
        RedisClusterOptions{.replicas_per_primary = 0,
                            // The cluster bus always asks a connecting node for a certificate, and
                            // the server's is for server authentication only.
                            .extra_args = {"--tls-client-cert-file", certificates.client_cert(),
                                           "--tls-client-key-file", certificates.client_key()},
                            .tls = RedisServerTls{.cert_file = certificates.server_cert(),
                                                  .key_file = certificates.server_key(),
                                                  .ca_file = certificates.ca()}});
    ASSERT_TRUE(cluster.seeds_url().starts_with("rediss://"));
    ClientOptions options;
    options.tls.ca_file = certificates.ca();
    Client client(cluster.seeds_url(), options);
    for (const std::size_t p : cluster.primaries()) {
        const std::string name = cluster.name_served_by(p, "tls");
        const SendResult sent = client.queue(name).send("over tls");
        const FetchResult f = client.leases(name).fetch(1, 30s);
        ASSERT_EQ(f.deliveries.size(), 1U) << name;
        EXPECT_EQ(f.deliveries[0].id(), sent.id);
        EXPECT_EQ(client.leases(name).ack(f.deliveries[0].lease()).status, LeaseStatus::kAcked);
    }
    // A client that trusts another CA reaches no node, and writes nothing.
    ClientOptions wrong;
    wrong.tls.ca_file = certificates.other_ca();
    Client refused(cluster.seeds_url(), wrong);
    const std::string name = cluster.name_served_by(0, "refused");
    EXPECT_THROW(refused.queue(name).send("x"), ConnectionError);
    EXPECT_EQ(cluster.node(0).command({"EXISTS", queue_key(name, "pending")}).integer, 0);
}

TEST_F(ClusterQueueTest, AListOfServersThatIsNotAClusterIsRefused) {
    RedisServer one;
    RedisServer two;
    Client client("redis://127.0.0.1:" + std::to_string(one.port()) +
                  ",127.0.0.1:" + std::to_string(two.port()));
    EXPECT_THROW(client.queue("q").send("x"), ConfigurationError);
}

// Tests that move slots, each on a cluster of its own.
TEST(ClusterSlotMoveTest, CallsFollowAQueueWhoseSlotMoved) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    Client client(cluster.seeds_url());
    const std::string name = cluster.name_served_by(0, "moving");
    Queue q = client.queue(name);
    QueueAdmin admin = client.admin(name);
    const SendResult before = q.send("before");
    ASSERT_TRUE(admin.get(before.id).has_value());  // the client knows the slot's first owner

    cluster.migrate_slot(RedisCluster::slot_of(name), 1);
    ASSERT_EQ(cluster.primary_of_slot(RedisCluster::slot_of(name)), 1U);

    // The client still thinks node 0: the call meets MOVED and goes to node 1.
    ASSERT_TRUE(admin.get(before.id).has_value());
    const SendResult after = q.send("after");
    const FetchResult f = client.leases(name).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2U);
    EXPECT_EQ(client.leases(name).ack(lease_of(std::span(f.deliveries))).size(), 2U);
    EXPECT_EQ(admin.stats().totals.acked, 2U);
    EXPECT_EQ(cluster.node(1).integer({"EXISTS", "dq:{" + name + "}:stats"}), 1);
    EXPECT_EQ(cluster.node(0).integer({"DBSIZE"}), 0);
    (void)after;
}

TEST(ClusterSlotMoveTest, AConsumerFollowsItsQueueWhenTheSlotMoves) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    Client client(cluster.seeds_url());
    const std::string name = cluster.name_served_by(0, "consumed");
    std::atomic<int> got{0};
    Consumer consumer(
        client.leases(name),
        [&](const Delivery&) -> Outcome {
            ++got;
            return Ack{};
        },
        without_idle_polling());
    consumer.start();
    Queue q = client.queue(name);
    q.send("before");
    ASSERT_TRUE(eventually([&] { return got.load() == 1; }));

    cluster.migrate_slot(RedisCluster::slot_of(name), 1);
    // Sent to the new primary, which publishes the wake signal there: only a waiter that moved
    // its subscription with the slot (or fetched on the new node) hears of it.
    q.send("after");
    EXPECT_TRUE(eventually([&] { return got.load() == 2; }));
    consumer.stop();
    consumer.wait();  // the acks are flushed once it has stopped, not when stop() returns
    EXPECT_EQ(client.admin(name).stats().totals.acked, 2U);
}

TEST(ClusterSlotMoveTest, ACallDuringAMoveWaitsForItsEnd) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    Client client(cluster.seeds_url(), ClientOptions{.command_timeout = 20s});
    const std::string name = cluster.name_served_by(0, "during");
    Queue q = client.queue(name);
    const SendResult first = q.send("first");
    const int slot = RedisCluster::slot_of(name);

    // Half moved: the stats key has gone to node 1, the rest is still on node 0. A call that
    // names both gets TRYAGAIN from node 0 until the move ends.
    cluster.begin_migration(slot, 0, 1);
    cluster.move_key("dq:{" + name + "}:stats", 0, 1);
    auto sending = std::async(std::launch::async, [&] { return q.send("during"); });
    EXPECT_EQ(sending.wait_for(200ms), std::future_status::timeout);
    cluster.move_keys(slot, 0, 1);
    cluster.end_migration(slot, 1);
    const SendResult during = sending.get();

    QueueAdmin admin = client.admin(name);
    ASSERT_TRUE(admin.get(first.id).has_value());
    ASSERT_TRUE(admin.get(during.id).has_value());
    EXPECT_EQ(admin.get(during.id)->payload, "during");
}

// The registry of queues with schedules has a slot of its own, apart from every queue's: a client
// follows it when it moves, as it follows a queue's.
TEST(ClusterSlotMoveTest, TheScheduleRegistryIsFoundAfterItsSlotMoved) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    Client client(cluster.seeds_url());
    ScheduleSpec spec;
    spec.every = 1h;
    ASSERT_EQ(client.schedules("q").add("tick", spec).status, PutStatus::kCreated);
    ASSERT_EQ(client.schedule_queues(), std::vector<std::string>{"q"});
    const int slot = RedisCluster::slot_of("dq:schedules");
    cluster.migrate_slot(slot, (cluster.primary_of_slot(slot) + 1) % 3);
    // The client still names the first owner: MOVED, then the map learnt again.
    EXPECT_EQ(client.schedule_queues(), std::vector<std::string>{"q"});
    EXPECT_TRUE(client.schedules("q").remove("tick"));
    EXPECT_TRUE(client.schedule_queues().empty());
}

// Schedules of queues on every primary: each claim is one call in its queue's slot, and the
// registry, in a slot of its own, lists them all for one scheduler.
TEST_F(ClusterQueueTest, ASchedulerClaimsTheSchedulesOfQueuesOnEveryPrimary) {
    Client client(cluster().seeds_url());
    const auto names = queues_on_each("sched");
    ScheduleSpec spec;
    spec.every = std::chrono::seconds(1);
    spec.payload = "tick";
    for (const std::string& name : names) {
        ASSERT_EQ(client.schedules(name).add("tick", spec).status, PutStatus::kCreated);
    }
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(client.schedule_queues(), sorted);
    Scheduler scheduler(client, SchedulerOptions{.poll = std::chrono::milliseconds(200),
                                                 .discover = std::chrono::milliseconds(200)});
    scheduler.start();
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(eventually([&] { return client.schedules(name).get("tick")->runs >= 2; }));
    }
    scheduler.stop();
    scheduler.wait();
    EXPECT_EQ(scheduler.stats().redis_errors, 0U);
    for (const std::string& name : names) {
        EXPECT_TRUE(client.schedules(name).remove("tick"));
        client.admin(name).delete_queue(true);
    }
    EXPECT_TRUE(client.schedule_queues().empty());
}

}  // namespace
}  // namespace delayq::test
