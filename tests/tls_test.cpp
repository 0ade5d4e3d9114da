// TLS to Redis (rediss://): every operation over a TLS-only server, mutual TLS, and each way the
// verification can fail, which must end within the connect timeout with a clear error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

// A gtest check that `text` contains `part`, showing both when it does not.
::testing::AssertionResult has(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

// Made once: the openssl runs take longer than most tests.
const TestCertificates& certificates() {
    static const TestCertificates kCertificates;
    return kCertificates;
}

RedisServerOptions tls_server(const std::string& cert, const std::string& key,
                              bool require_client_cert = false) {
    return {.tls = RedisServerTls{.cert_file = cert,
                                  .key_file = key,
                                  .ca_file = certificates().ca(),
                                  .require_client_cert = require_client_cert}};
}

// The bad cases fail fast; a short timeout turns a hang into a TimeoutError, which the tests
// tell apart from the ConnectionError they expect.
ClientOptions trusting(const std::string& ca) {
    ClientOptions o{.connect_timeout = 2s, .command_timeout = 2s};
    o.tls.ca_file = ca;
    return o;
}

// The message of the error `ping` throws on a client for `url`, or "" when it throws none.
// A TimeoutError (a hang cut short) is reported as such, so that no test mistakes one for the
// clear error it expects.
std::string ping_error(const std::string& url, const ClientOptions& options) {
    try {
        Client c(url, options);
        c.ping();
        return "";
    } catch (const TimeoutError& e) {
        return std::string("TimeoutError: ") + e.what();
    } catch (const ConnectionError& e) {
        return e.what();
    }
}

class TlsTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override {
        return tls_server(certificates().server_cert(), certificates().server_key());
    }
    ClientOptions client_options() const override { return trusting(certificates().ca()); }
};

TEST_F(TlsTest, UrlIsRediss) { EXPECT_EQ(server().url().rfind("rediss://", 0), 0u); }

TEST_F(TlsTest, SendsBatchesAndInspects) {
    Queue q = queue();
    const SendResult one = q.send("one", {.delay = 1h});
    const std::vector<SendResult> batch = send_many(q, 50, "batch");
    EXPECT_EQ(batch.size(), 50u);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 51);

    QueueAdmin a = admin(q);
    EXPECT_EQ(a.stats().ready, 50u);
    const MessagePage scheduled = a.list(State::kScheduled);
    ASSERT_EQ(scheduled.messages.size(), 1u);
    EXPECT_EQ(scheduled.messages[0].id, one.id);
    EXPECT_EQ(a.get(one.id)->payload, "one");
    EXPECT_EQ(client().queues(), std::vector<std::string>{"q"});
}

TEST_F(TlsTest, LeasesAckAndNack) {
    Queue q = queue();
    const SentAndLeased first = send_and_fetch(q, "a");
    EXPECT_EQ(first.delivery.payload(), "a");
    EXPECT_EQ(leases(q).ack(first.delivery.lease()).status, LeaseStatus::kAcked);

    const SentAndLeased second = send_and_fetch(q, "b");
    const LeaseResult nacked = leases(q).nack(second.delivery.lease(), Nack{.delay = 1h});
    EXPECT_EQ(nacked.status, LeaseStatus::kRetrying);
    EXPECT_EQ(admin(q).get(second.sent.id)->state, State::kScheduled);
    EXPECT_EQ(admin(q).stats().totals.acked, 1u);
}

TEST_F(TlsTest, ConsumerWakesThroughTheSubscriber) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    // No idle polling: only the wake signal, read by the subscriber over TLS, can deliver these.
    Consumer c(leases(q), recording(seen), without_idle_polling());
    c.start();
    q.send("first");
    ASSERT_TRUE(seen.wait_for(1));
    q.send("second");
    ASSERT_TRUE(seen.wait_for(2));
    send_many(q, 100);
    ASSERT_TRUE(seen.wait_for(102));
    c.stop();
    c.wait();
    EXPECT_EQ(c.stats().acked, 102u);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(TlsTest, IdleConnectionsTheServerClosedAreReplaced) {
    Queue q = queue();
    q.send("before");
    // Drops every client connection but the helper's own (over the unix socket).
    server().command({"CLIENT", "KILL", "TYPE", "normal"});
    q.send("after");
    EXPECT_EQ(admin(q).stats().ready, 2u);
}

TEST_F(TlsTest, ServerNameOptionNamesTheCertificate) {
    ClientOptions o = trusting(certificates().ca());
    o.tls.server_name = "localhost";  // the URL says 127.0.0.1; the certificate has both
    EXPECT_EQ(ping_error(server().url(), o), "");
}

TEST_F(TlsTest, WrongCaFailsVerification) {
    EXPECT_TRUE(has(ping_error(server().url(), trusting(certificates().other_ca())),
                    "certificate verify failed"));
    EXPECT_TRUE(has(ping_error(server().url(), trusting(certificates().other_ca())),
                    "is the CA file right?"));
}

TEST_F(TlsTest, SystemCasDoNotTrustATestCa) {
    EXPECT_TRUE(has(ping_error(server().url(), ClientOptions{.connect_timeout = 2s}),
                    "certificate verify failed"));
}

TEST_F(TlsTest, WrongServerNameFailsVerification) {
    ClientOptions o = trusting(certificates().ca());
    o.tls.server_name = "other.example";
    EXPECT_TRUE(has(ping_error(server().url(), o),
                    "host name mismatch: the server's certificate is not for "
                    "other.example"));
}

TEST_F(TlsTest, InsecureSkipVerifyAcceptsAnyCertificate) {
    ClientOptions o = trusting(certificates().other_ca());
    o.tls.server_name = "other.example";
    o.tls.insecure_skip_verify = true;
    EXPECT_EQ(ping_error(server().url(), o), "");
}

TEST_F(TlsTest, PlainConnectionToTheTlsPortFails) {
    const std::string plain = "redis://127.0.0.1:" + std::to_string(server().port());
    EXPECT_TRUE(has(ping_error(plain, ClientOptions{.connect_timeout = 2s, .command_timeout = 2s}),
                    "a TLS port? then use rediss://"));
}

// The plain server reads the TLS greeting as the start of a command and waits for its end: no
// answer ever comes, and the connect timeout ends the wait.
TEST(TlsPlainServerTest, TlsConnectionToAPlainPortTimesOutClearly) {
    const RedisServer plain;
    const std::string url = "rediss://127.0.0.1:" + std::to_string(plain.port());
    ClientOptions o = trusting(certificates().ca());
    o.connect_timeout = 300ms;
    EXPECT_TRUE(has(ping_error(url, o), "TimeoutError: cannot connect to Redis at 127.0.0.1:" +
                                            std::to_string(plain.port()) +
                                            ": timed out in the TLS handshake (is this Redis's "
                                            "TLS port?)"));
}

TEST(TlsExpiredTest, ExpiredServerCertificateFailsVerification) {
    const RedisServer server(
        tls_server(certificates().expired_cert(), certificates().expired_key()));
    EXPECT_TRUE(has(ping_error(server.url(), trusting(certificates().ca())),
                    "certificate verify failed: certificate has expired"));
}

TEST(TlsWrongHostTest, CertificateForAnotherHostFailsVerification) {
    const RedisServer server(
        tls_server(certificates().wrong_host_cert(), certificates().wrong_host_key()));
    EXPECT_TRUE(has(ping_error(server.url(), trusting(certificates().ca())),
                    "host name mismatch: the server's certificate is not for 127.0.0.1"));
}

class MutualTlsTest : public TlsTest {
  protected:
    RedisServerOptions server_options() const override {
        return tls_server(certificates().server_cert(), certificates().server_key(), true);
    }
    ClientOptions client_options() const override {
        ClientOptions o = trusting(certificates().ca());
        o.tls.cert_file = certificates().client_cert();
        o.tls.key_file = certificates().client_key();
        return o;
    }
};

TEST_F(MutualTlsTest, ClientCertificateIsAccepted) {
    Queue q = queue();
    const SentAndLeased sl = send_and_fetch(q, "x");
    EXPECT_EQ(leases(q).ack(sl.delivery.lease()).status, LeaseStatus::kAcked);
}

TEST_F(MutualTlsTest, MissingClientCertificateIsRefused) {
    const std::string error = ping_error(server().url(), trusting(certificates().ca()));
    EXPECT_TRUE(has(error, "certificate required"));
    EXPECT_TRUE(has(error, "the server asked for a client certificate, and none is set"));
}

// Bad options are found when the client is made, before anything is sent.
TEST(TlsOptionsTest, BadOptionsAreInvalidArguments) {
    const std::string url = "rediss://127.0.0.1:1";
    auto error_of = [&](const TlsOptions& tls) -> std::string {
        ClientOptions o;
        o.tls = tls;
        try {
            Client c(url, o);
        } catch (const InvalidArgument& e) {
            return e.what();
        }
        return "";
    };
    const TestCertificates& c = certificates();
    EXPECT_TRUE(
        has(error_of({.ca_file = c.dir().string() + "/missing.crt"}), "cannot read the CA file"));
    EXPECT_TRUE(has(error_of({.ca_file = c.client_key()}), "holds no usable certificate"));
    EXPECT_TRUE(has(error_of({.key_file = c.client_key()}), "a client key needs its certificate"));
    EXPECT_TRUE(has(error_of({.cert_file = c.client_cert()}),
                    "a client certificate needs its private key"));
    EXPECT_TRUE(has(error_of({.cert_file = c.client_cert(), .key_file = c.server_key()}),
                    "does not belong to the certificate"));
    EXPECT_EQ(
        error_of({.ca_file = c.ca(), .cert_file = c.client_cert(), .key_file = c.client_key()}),
        "");
}

TEST(TlsOptionsTest, TlsOptionsWithAPlainUrlAreRefused) {
    ClientOptions o;
    o.tls.ca_file = certificates().ca();
    EXPECT_THROW(Client("redis://127.0.0.1:1", o), InvalidArgument);
    EXPECT_THROW(Client("unix:///tmp/redis.sock", o), InvalidArgument);
}

}  // namespace
}  // namespace delayq::test
