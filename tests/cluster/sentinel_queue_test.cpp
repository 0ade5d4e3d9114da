// The library through Redis Sentinel (redis+sentinel://): the master found by asking the
// sentinels, and calls, consumers and their waiters that follow a failover without a restart.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/recorder.hpp"
#include "support/redis_sentinel.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

std::string wake_channel(const std::string& queue) { return "dq:{" + queue + "}:wake"; }

// How many subscribers `server` has on the queue's wake channel (a shard channel).
long long wake_subscribers(const RedisServer& server, const std::string& queue) {
    const RawReply r = server.command({"PUBSUB", "SHARDNUMSUB", wake_channel(queue)});
    return r.elements.size() == 2 ? r.elements[1].integer : -1;
}

// A consumer that acks everything and collects the ids it was handed.
struct CollectingConsumer {
    CollectingConsumer(const Client& client, const std::string& queue)
        : consumer(
              client.leases(queue),
              [this](const Delivery& d) -> Outcome {
                  ids.add(d.id());
                  return Ack{};
              },
              // Without the idle check: only a fetch, the aim at a due time or a wake
              // signal heard by the waiter makes it fetch.
              without_idle_polling()) {
        consumer.start();
    }
    ~CollectingConsumer() { consumer.stop(); }
    CollectingConsumer(const CollectingConsumer&) = delete;
    CollectingConsumer& operator=(const CollectingConsumer&) = delete;

    bool got(const std::string& id) const {
        for (const std::string& seen : ids.items()) {
            if (seen == id) return true;
        }
        return false;
    }

    Collector<std::string> ids;
    Consumer consumer;
};

// One set for the tests that change no role.
class SentinelQueueTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { set_ = std::make_unique<RedisSentinelSet>(); }
    static void TearDownTestSuite() { set_.reset(); }
    static RedisSentinelSet& set() { return *set_; }

    // The URL with its sentinel list replaced by `sentinels` ("h:p,h:p").
    static std::string url_with(const std::string& sentinels, const std::string& name) {
        return "redis+sentinel://" + sentinels + "/" + name;
    }
    static std::string sentinels() {
        const std::string url = set().url();
        const auto begin = url.find("://") + 3;
        return url.substr(begin, url.rfind('/') - begin);
    }

  private:
    static inline std::unique_ptr<RedisSentinelSet> set_;
};

TEST_F(SentinelQueueTest, SendsAndConsumesOnTheMasterTheSentinelsName) {
    // The first sentinel is not running: the next one answers.
    Client client(url_with("127.0.0.1:1," + sentinels(), set().master_name()));
    Queue q = client.queue("through-sentinels");
    CollectingConsumer consumer(client, "through-sentinels");
    const SendResult sent = q.send("x");
    EXPECT_TRUE(consumer.ids.wait_for(1));
    EXPECT_EQ(consumer.ids.items().front(), sent.id);
    // On the primary, and not on the replica by a write of its own (it refuses writes).
    EXPECT_EQ(set().server(0).integer({"EXISTS", "dq:{through-sentinels}:stats"}), 1);
    EXPECT_TRUE(
        eventually([&] { return client.admin("through-sentinels").stats().totals.acked == 1U; }));
}

TEST_F(SentinelQueueTest, AMasterNoSentinelKnowsIsAConfigurationError) {
    Client client(url_with(sentinels(), "no-such-master"));
    try {
        client.queue("q").send("x");
        FAIL() << "sent through sentinels that know no such master";
    } catch (const ConfigurationError& e) {
        EXPECT_NE(std::string(e.what()).find("no-such-master"), std::string::npos) << e.what();
    }
}

TEST_F(SentinelQueueTest, NoSentinelAnsweringIsAConnectionErrorNamingEach) {
    Client client(url_with("127.0.0.1:1,127.0.0.1:2", set().master_name()),
                  ClientOptions{.connect_timeout = 500ms});
    try {
        client.queue("q").send("x");
        FAIL() << "sent with no sentinel running";
    } catch (const ConnectionError& e) {
        const std::string why = e.what();
        EXPECT_NE(why.find("127.0.0.1:1:"), std::string::npos) << why;
        EXPECT_NE(why.find("127.0.0.1:2:"), std::string::npos) << why;
    }
}

// The sentinels get their own password: these have none, so one sent is refused there, while
// the data servers are never asked with it.
TEST_F(SentinelQueueTest, TheSentinelPasswordGoesToTheSentinels) {
    Client client(set().url(), ClientOptions{.sentinel = {.password = "sentinel-pw"}});
    try {
        client.queue("q").send("x");
        FAIL() << "a sentinel took a password it does not have";
    } catch (const ConnectionError& e) {
        EXPECT_NE(std::string(e.what()).find("AUTH"), std::string::npos) << e.what();
    }
}

// A sentinel ACL user with exactly what docs/security.md grants it is enough: the master found,
// and +switch-master heard (the watch subscribes as soon as the master is found).
TEST_F(SentinelQueueTest, ASentinelUserWithTheDocumentedGrantsIsEnough) {
    for (std::size_t i = 0; i < RedisSentinelSet::kSentinels; ++i) {
        const RawReply r = set().sentinel(i).command(
            {"ACL", "SETUSER", "dq-sentinel", "on", ">sentinel-pw", "resetchannels", "-@all",
             "+ping", "+sentinel|get-master-addr-by-name", "+subscribe", "&+switch-master"});
        ASSERT_FALSE(r.is_error()) << r.str;
    }
    Client client(set().url(),
                  ClientOptions{.sentinel = {.password = "sentinel-pw", .user = "dq-sentinel"}});
    const SendResult sent = client.queue("sentinel-user").send("x");
    EXPECT_TRUE(client.admin("sentinel-user").get(sent.id).has_value());
    EXPECT_TRUE(eventually([&] {
        for (std::size_t i = 0; i < RedisSentinelSet::kSentinels; ++i) {
            const std::string clients = set().sentinel(i).command({"CLIENT", "LIST"}).str;
            std::size_t at = 0;
            for (std::size_t end = 0; end != std::string::npos; at = end + 1) {
                end = clients.find('\n', at);
                const std::string line = clients.substr(at, end - at);
                if (line.find(" sub=1 ") != std::string::npos &&
                    line.find(" user=dq-sentinel ") != std::string::npos) {
                    return true;
                }
            }
        }
        return false;
    })) << "no sentinel has the user's +switch-master subscription";
    // The same user with a wrong password is refused by every sentinel.
    Client wrong(set().url(),
                 ClientOptions{.sentinel = {.password = "nope", .user = "dq-sentinel"}});
    EXPECT_THROW(wrong.queue("sentinel-user").send("x"), ConnectionError);
}

// The roles `delayq acl` prints are enough for a Sentinel client (ROLE on the master), with the
// users made alike on both data servers, as an operator does: ACL users are not replicated.
TEST_F(SentinelQueueTest, AWriterRoleUserRunsThroughTheSentinels) {
    const std::string name = "sentinel-acl";
    const std::string user = "sentinel-writer";
    for (std::size_t i = 0; i < 2; ++i) {
        for (const auto& command :
             acl_commands(user, AclRole::kWriter, {*QueuePattern::parse(name)})) {
            const RawReply r = set().server(i).command(command);
            ASSERT_FALSE(r.is_error()) << redis_cli_line(command) << ": " << r.str;
        }
        ASSERT_FALSE(set().server(i).command({"ACL", "SETUSER", user, ">pw"}).is_error());
    }
    Client client(url_with(user + ":pw@" + sentinels(), set().master_name()));
    const SendResult sent = client.queue(name).send("x");
    const FetchResult f = client.leases(name).fetch(1, 30s);
    ASSERT_EQ(f.deliveries.size(), 1U);
    EXPECT_EQ(f.deliveries[0].id(), sent.id);
    EXPECT_EQ(client.leases(name).ack(f.deliveries[0].lease()).status, LeaseStatus::kAcked);
}

// READONLY is a failover's sign under Sentinel only: a client given a replica's own URL is told
// so, as a ServerError, rather than asking anyone where the master went.
TEST_F(SentinelQueueTest, AReplicasOwnUrlGetsReadOnlyAsAServerError) {
    Client client(set().server(1).url());
    try {
        client.queue("to-a-replica").send("x");
        FAIL() << "a replica took a write";
    } catch (const ServerError& e) {
        EXPECT_NE(std::string(e.what()).find("READONLY"), std::string::npos) << e.what();
    }
}

TEST(SentinelOptionsTest, SentinelOptionsWithAnotherUrlAreRefused) {
    EXPECT_THROW(Client("redis://127.0.0.1:6379", ClientOptions{.sentinel = {.password = "pw"}}),
                 InvalidArgument);
    EXPECT_THROW(
        Client("redis://127.0.0.1:6379", ClientOptions{.sentinel = {.tls = {.ca_file = "ca"}}}),
        InvalidArgument);
    EXPECT_THROW(
        Client("redis+sentinel://127.0.0.1:1/m", ClientOptions{.sentinel = {.password = ""}}),
        InvalidArgument);
}

// Sentinels that speak TLS only, the data servers plain: the sentinels' own TLS options reach
// them, and a client that trusts another CA for them finds no master and writes nothing.
TEST(SentinelTlsTest, TlsSentinelsAreReachedWithTheirOwnOptions) {
    const TestCertificates certificates;
    RedisSentinelSet set(
        RedisSentinelOptions{.sentinel_tls = RedisServerTls{.cert_file = certificates.server_cert(),
                                                            .key_file = certificates.server_key(),
                                                            .ca_file = certificates.ca()}});
    ClientOptions options;
    options.sentinel.tls.ca_file = certificates.ca();
    Client client(set.url(), options);
    const SendResult sent = client.queue("tls").send("through TLS sentinels");
    const FetchResult f = client.leases("tls").fetch(1, 30s);
    ASSERT_EQ(f.deliveries.size(), 1U);
    EXPECT_EQ(f.deliveries[0].id(), sent.id);

    ClientOptions wrong;
    wrong.sentinel.tls.ca_file = certificates.other_ca();
    Client refused(set.url(), wrong);
    EXPECT_THROW(refused.queue("refused").send("x"), ConnectionError);
    EXPECT_EQ(set.primary().command({"EXISTS", queue_key("refused", "pending")}).integer, 0);
}

// Sends `payload` with `id` until one is answered: a producer's retry, harmless with an id. A
// call may meet the dead master before the client learns of the failover.
SendResult send_until_answered(Queue& q, const std::string& payload, const std::string& id) {
    std::optional<SendResult> out;
    EXPECT_TRUE(eventually([&] {
        try {
            out = q.send(payload, {.id = id});
            return true;
        } catch (const ConnectionError&) {
            return false;
        }
    }));
    return out.value_or(SendResult{});
}

// Tests that fail over, each on a set of its own.
TEST(SentinelFailoverTest, ProducerAndConsumerFollowAFailover) {
    RedisSentinelSet set;
    Client client(set.url());
    const std::string name = "failing-over";
    Queue q = client.queue(name);
    CollectingConsumer consumer(client, name);
    q.send("before", {.id = "before"});
    ASSERT_TRUE(consumer.ids.wait_for(1));
    ASSERT_TRUE(eventually([&] { return wake_subscribers(set.server(0), name) == 1; }));

    // A producer sends all along; what it sent in the failover's window may be lost (docs/
    // reliability.md, Sentinel), so only its errors are counted here.
    std::atomic<bool> stop{false};
    std::atomic<int> sent_during{0};
    std::thread producer([&] {
        for (int i = 0; !stop.load(); ++i) {
            try {
                q.send("during", {.id = "during-" + std::to_string(i)});
                ++sent_during;
            } catch (const Error&) {
            }
        }
    });
    set.failover();
    stop.store(true);
    producer.join();
    EXPECT_GT(sent_during.load(), 0);

    // Every send after the failover is answered at once: the former master says READONLY, or
    // the client knows of the switch already; either way the call goes to the new one.
    std::vector<std::string> after;
    for (int i = 0; i < 5; ++i) {
        after.push_back(q.send("after", {.id = "after-" + std::to_string(i)}).id);
    }
    EXPECT_TRUE(eventually([&] {
        for (const std::string& id : after) {
            if (!consumer.got(id)) return false;
        }
        return true;
    }));
    // The waiter moved to the new master; the demoted one, still up, holds no subscription.
    EXPECT_TRUE(eventually([&] { return wake_subscribers(set.server(1), name) == 1; }));
    EXPECT_TRUE(eventually([&] { return wake_subscribers(set.server(0), name) == 0; }));
}

// A client that only waits makes no call that could meet the demoted master: it learns of the
// failover from the sentinels' +switch-master alone, and its waiter moves.
TEST(SentinelFailoverTest, AWaiterMovesOnTheSentinelsAnnouncement) {
    RedisSentinelSet set;
    Client client(set.url());
    const std::string name = "waiting";
    Waiter waiter(client.leases(name));
    waiter.start();
    ASSERT_TRUE(eventually([&] { return wake_subscribers(set.server(0), name) == 1; }));
    ASSERT_EQ(waiter.stats().subscriptions, 1U);

    set.failover();
    EXPECT_TRUE(eventually([&] { return wake_subscribers(set.server(1), name) == 1; }));
    EXPECT_TRUE(eventually([&] { return waiter.stats().subscriptions == 2U; }));
    EXPECT_TRUE(eventually([&] { return wake_subscribers(set.server(0), name) == 0; }));
    waiter.stop();
}

TEST(SentinelFailoverTest, AConsumerIsWokenOnTheNewMasterAfterItsMasterWasKilled) {
    RedisSentinelSet set;
    Client client(set.url());
    const std::string name = "killed";
    Queue q = client.queue(name);
    CollectingConsumer consumer(client, name);
    q.send("before", {.id = "before"});
    ASSERT_TRUE(consumer.ids.wait_for(1));

    set.server(0).kill();
    set.wait_for_primary(set.server(1));
    // Delivered once the consumer's fetches reach the new master, by a retry or a wake-up.
    send_until_answered(q, "probe", "probe");
    ASSERT_TRUE(eventually([&] { return consumer.got("probe"); }));
    // The consumer now sleeps without a due time and without the idle check: only a wake
    // signal, published on the new master, can make it fetch this one.
    send_until_answered(q, "after", "after");
    EXPECT_TRUE(eventually([&] { return consumer.got("after"); }));
    EXPECT_EQ(wake_subscribers(set.server(1), name), 1);
}

}  // namespace
}  // namespace delayq::test
