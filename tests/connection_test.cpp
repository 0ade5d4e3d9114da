#include <string>
#include <thread>
#include <vector>

#include "support/acl.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

// Short timeouts: these tests take the server away on purpose.
ClientOptions quick_giving_up() {
    return ClientOptions{.connect_timeout = 500ms, .command_timeout = 500ms};
}

// Retries a send with a fixed id until Redis is back: safe because the id makes it idempotent.
SendResult send_when_back(Queue& q, const std::string& payload, const SendOptions& options) {
    SendResult result;
    const bool sent = eventually(
        [&] {
            try {
                result = q.send(payload, options);
                return true;
            } catch (const ConnectionError&) {
                return false;
            }
        },
        30s);
    if (!sent) throw std::runtime_error("send did not succeed after Redis came back");
    return result;
}

// Retries after a Redis error quickly, so that a consumer is back soon after a restart.
ConsumerOptions quick_retry() {
    ConsumerOptions o;
    o.backoff = Backoff{.initial = 10ms};
    return o;
}

// Checks that a client on `url` gets through: it answers a ping, and its send lands in queue "q".
void expect_usable(const std::string& url, const RedisServer& server) {
    Client c(url);
    EXPECT_NO_THROW(c.ping());
    c.queue("q").send("x");
    EXPECT_EQ(server.zcard(queue_key("q", "pending")), 1);
}

// The keys of queue "q" holding one scheduled message, sorted.
std::vector<std::string> queue_keys_after_one_send() {
    return {queue_key("q", "msg"), queue_key("q", "pending"), queue_key("q", "settings"),
            queue_key("q", "stats")};
}

using ConnectionTest = RedisTest;

TEST_F(ConnectionTest, TcpUrlWithDatabase) {
    Client c(server().url(3));
    Queue q = c.queue("q");
    q.send("x");
    EXPECT_EQ(server().keys("dq:*", 3), queue_keys_after_one_send());
    EXPECT_EQ(server().dbsize(0), 0);
    EXPECT_EQ(c.admin("q").stats().ready, 1u);
}

TEST_F(ConnectionTest, LocalhostUrlWithoutDatabase) {
    expect_usable("redis://localhost:" + std::to_string(server().port()), server());
}

TEST_F(ConnectionTest, UnreachableServerIsAConnectionError) {
    Client c("redis://127.0.0.1:" + std::to_string(free_port()), quick_giving_up());
    EXPECT_THROW(c.ping(), ConnectionError);
    Queue q = c.queue("q");
    EXPECT_THROW(q.send("x"), ConnectionError);
}

TEST_F(ConnectionTest, ScriptFlushIsRecoveredFrom) {
    Queue q = queue();
    q.send("before", {.id = "a"});
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    const SendResult s = q.send("after");
    EXPECT_FALSE(s.duplicate);
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    EXPECT_EQ(leases(q).ack(lease_of(f.deliveries[0])).status, LeaseStatus::kAcked);
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    EXPECT_EQ(leases(q).extend(lease_of(f.deliveries[1]), 30s).status, LeaseStatus::kExtended);
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    EXPECT_EQ(admin(q).stats().in_flight, 1u);
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    EXPECT_TRUE(admin(q).get(s.id));
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    EXPECT_EQ(admin(q).list(State::kInFlight).messages.size(), 1u);
}

TEST_F(ConnectionTest, ConsumerSurvivesScriptFlush) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen));
    c.start();
    q.send("one");
    ASSERT_TRUE(seen.wait_for(1));
    ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
    q.send("two");
    ASSERT_TRUE(seen.wait_for(2));
    EXPECT_TRUE(eventually([&] { return admin(q).stats().totals.acked == 2; }));
}

TEST_F(ConnectionTest, CommandTimeoutIsATimeoutError) {
    Client c(server().url(), quick_giving_up());
    Queue q = c.queue("q");
    q.send("warm up");
    // Stalls every command for 3 s; the connection stays up.
    ASSERT_FALSE(server().command({"CLIENT", "PAUSE", "3000", "ALL"}).is_error());
    EXPECT_THROW(q.send("stalled", {.id = "s"}), TimeoutError);
    // Back to normal once the pause ends; retrying the id is safe.
    send_when_back(q, "stalled", {.id = "s"});
    EXPECT_EQ(c.admin("q").get("s")->payload, "stalled");
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 2);
}

TEST_F(ConnectionTest, FrozenServerIsATimeoutNotAHang) {
    Client warm(server().url(), quick_giving_up());
    Queue q = warm.queue("q");
    q.send("warm up");
    server().freeze();
    // A pooled connection, and a new client whose TCP connect succeeds but whose first command
    // never gets an answer.
    EXPECT_THROW(q.send("x"), TimeoutError);
    Client cold(server().url(), quick_giving_up());
    EXPECT_THROW(cold.ping(), TimeoutError);
    server().thaw();
    EXPECT_EQ(send_when_back(q, "after", {.id = "after"}).id, "after");
    EXPECT_NO_THROW(cold.ping());
}

TEST_F(ConnectionTest, ProducerGetsAnErrorNotAHangWhileRedisIsDown) {
    Client c(server().url(), quick_giving_up());
    Queue q = c.queue("q");
    q.send("before");
    server().stop();
    EXPECT_THROW(q.send("during"), ConnectionError);
    EXPECT_THROW(q.send("during"), ConnectionError);
    EXPECT_THROW(c.admin("q").stats(), ConnectionError);
    EXPECT_THROW(c.leases("q").fetch(1, 1s), ConnectionError);
    EXPECT_THROW(c.ping(), ConnectionError);
    server().start();
    const SendResult s = send_when_back(q, "after", {.id = "after"});
    EXPECT_FALSE(s.duplicate);
    EXPECT_EQ(c.admin("q").get("after")->payload, "after");
}

TEST_F(ConnectionTest, ConsumerResumesByItselfAfterARestart) {
    Queue q = client().queue("q");
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen), quick_retry());
    c.start();
    q.send("one");
    ASSERT_TRUE(seen.wait_for(1));

    server().restart();  // without persistence: an empty server
    send_when_back(q, "two", {.id = "two"});
    ASSERT_TRUE(seen.wait_for(2, 30s));
    EXPECT_EQ(seen.items()[1].id, "two");
    EXPECT_TRUE(eventually([&] { return !admin(q).get("two"); }));
    c.stop();
    c.wait();
}

class PersistentConnectionTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override { return {.appendonly = true}; }
};

TEST_F(PersistentConnectionTest, SleepingConsumerDeliversAMessageDueAfterARestart) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen));
    c.start();
    const SendResult s = q.send("x", {.delay = 1500ms});
    server().restart();
    ASSERT_TRUE(seen.wait_for(1, 30s));
    const DeliveryRecord r = seen.items()[0];
    EXPECT_EQ(r.id, s.id);
    EXPECT_EQ(r.due_ms, ms(s.due));
    EXPECT_GE(r.delivered_at_ms, r.due_ms);
    EXPECT_EQ(r.attempt, 1);
}

TEST_F(PersistentConnectionTest, AckOfAHandlerRunningAcrossARestartIsNotLost) {
    Queue q = queue();
    const SendResult s = q.send("x");
    Collector<DeliveryRecord> seen;
    Latch finish;
    Consumer c(leases(q), recording(seen, ack_once_open(finish)), quick_retry());
    c.start();
    ASSERT_TRUE(seen.wait_for(1));
    server().restart();  // the lease survives in the append-only file
    finish.open();
    EXPECT_TRUE(eventually(
        [&] {
            try {
                return !admin(q).get(s.id);
            } catch (const ConnectionError&) {
                return false;
            }
        },
        30s))
        << "the ack never reached the restarted server";
    c.stop();
    c.wait();
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(c.stats().acked, 1u);
}

class UnixSocketTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override { return {.unix_socket = true}; }
};

TEST_F(UnixSocketTest, UnixSocketUrl) {
    Client c("unix://" + server().unix_socket_path());
    Queue q = c.queue("q");
    const SendResult s = q.send("over a socket");
    EXPECT_EQ(c.admin("q").get(s.id)->payload, "over a socket");
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

TEST_F(UnixSocketTest, UnixSocketUrlWithDatabase) {
    Client c("unix://" + server().unix_socket_path() + "?db=2");
    c.queue("q").send("x");
    EXPECT_EQ(server().keys("dq:*", 2), queue_keys_after_one_send());
    EXPECT_EQ(server().dbsize(0), 0);
}

class PasswordTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override { return {.password = "s3cret"}; }
    void SetUp() override {
        server_ = std::make_unique<RedisServer>(server_options());
        // No default client: each test names its credentials.
    }
    std::string base() const { return "127.0.0.1:" + std::to_string(server_->port()); }
};

TEST_F(PasswordTest, PasswordInTheUrl) { expect_usable("redis://:s3cret@" + base(), server()); }

TEST_F(PasswordTest, DefaultUserAndPassword) {
    Client c("redis://default:s3cret@" + base() + "/1");
    c.queue("q").send("x");
    EXPECT_EQ(server().keys("dq:*", 1), queue_keys_after_one_send());
}

TEST_F(PasswordTest, AclUser) {
    ASSERT_FALSE(add_acl_user(server(), "alice", "wonderland").is_error());
    expect_usable("redis://alice:wonderland@" + base(), server());
}

TEST_F(PasswordTest, CredentialsArePercentDecoded) {
    ASSERT_FALSE(add_acl_user(server(), "bob@example", "p@ss:w/rd%").is_error());
    expect_usable("redis://bob%40example:p%40ss%3Aw%2Frd%25@" + base(), server());
}

TEST_F(PasswordTest, MissingOrWrongPasswordIsAnError) {
    Client none("redis://" + base(), quick_giving_up());
    EXPECT_THROW(none.ping(), Error);
    Client wrong("redis://:wrong@" + base(), quick_giving_up());
    EXPECT_THROW(wrong.ping(), Error);
    EXPECT_THROW(wrong.queue("q").send("x"), Error);
    EXPECT_EQ(server().dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
