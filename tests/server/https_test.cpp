// HTTPS (--listen-tls-cert, --listen-tls-key): requests over TLS with a certificate made at run
// time, a plain-HTTP or silent client closed without harm to the others, the flags' checks,
// and the certificate re-read on SIGHUP.
#include <gtest/gtest.h>
#include <signal.h>

#include <delayq/delayq.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "cli/cli_runner.hpp"
#include "http/tls_context.hpp"
#include "server/support/serve_process.hpp"
#include "server/support/service_fixture.hpp"
#include "server/support/tls_files.hpp"
#include "support/fixture.hpp"
#include "support/redis_server.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpsTest : public ServiceTest {
  protected:
    void start_tls(const std::function<void(server::http::HttpLimits&)>& limits = {}) {
        files_ = make_self_signed(redis().dir());
        ASSERT_FALSE(files_.cert.empty()) << "openssl could not make a certificate";
        start([this, &limits](server::service::ServiceConfig& c) {
            c.tls = server::http::TlsFiles{files_.cert, files_.key};
            if (limits) limits(c.limits);
        });
    }
    CurlResult https(const std::string& method, const std::string& target,
                     const std::string& body = {}) {
        return curl_https(port(), files_.cert, method, target, body);
    }

    CertFiles files_;
};

TEST_F(HttpsTest, SendsAndLeasesOverHttps) {
    start_tls();
    const CurlResult sent =
        https("POST", "/v1/queues/q/messages", R"({"payload": "secret", "id": "m1"})");
    ASSERT_EQ(sent.exit_code, 0) << sent.body;
    EXPECT_EQ(sent.status, 201u) << sent.body;
    const CurlResult leased = https("POST", "/v1/queues/q/leases", R"({"wait": "10s"})");
    ASSERT_EQ(leased.exit_code, 0) << leased.body;
    ASSERT_EQ(leased.status, 200u) << leased.body;
    const json d = json::parse(leased.body)["deliveries"];
    ASSERT_EQ(d.size(), 1u) << leased.body;
    EXPECT_EQ(d[0]["id"], "m1");
    EXPECT_EQ(d[0]["payload"], "secret");
}

TEST_F(HttpsTest, PlainHttpToTheTlsPortFailsAndTheServerKeepsServing) {
    start_tls();
    {
        HttpClient plain(port());
        EXPECT_THROW(plain.get("/healthz"), std::exception);
    }
    // A client that does not trust the certificate fails its handshake too.
    const auto other = make_self_signed(redis().dir(), "other-");
    ASSERT_FALSE(other.cert.empty());
    EXPECT_NE(curl_https(port(), other.cert, "GET", "/healthz").exit_code, 0);

    const CurlResult r = https("GET", "/healthz");
    ASSERT_EQ(r.exit_code, 0) << r.body;
    EXPECT_EQ(r.status, 200u);
    ASSERT_TRUE(eventually([&] { return service().connections() == 0; }));
}

TEST_F(HttpsTest, AClientSilentDuringTheHandshakeIsClosedAtItsTimeout) {
    start_tls([](auto& l) { l.handshake_timeout = std::chrono::milliseconds(200); });
    HttpClient silent(port());
    ASSERT_TRUE(eventually([&] { return service().handshakes() == 1; }));
    EXPECT_EQ(service().connections(), 0u);
    EXPECT_TRUE(silent.closed_by_server());
    ASSERT_TRUE(eventually([&] { return service().handshakes() == 0; }));
}

// Slowloris in the handshake: clients that connect and never send a ClientHello.
TEST_F(HttpsTest, SilentClientsInTheirHandshakeHoldNoConnectionSlot) {
    start_tls([](auto& l) { l.max_connections = 2; });
    std::vector<std::unique_ptr<HttpClient>> silent;
    for (int i = 0; i < 5; ++i) silent.push_back(std::make_unique<HttpClient>(port()));
    ASSERT_TRUE(eventually([&] { return service().handshakes() == 5; }));
    EXPECT_EQ(service().connections(), 0u);

    const CurlResult r = https("GET", "/healthz");
    ASSERT_EQ(r.exit_code, 0) << r.body;
    EXPECT_EQ(r.status, 200u);
    EXPECT_EQ(service().handshakes(), 5u);  // none was closed to make room
    EXPECT_EQ(service().refused_handshakes(), 0u);
}

TEST_F(HttpsTest, PastTheHandshakeCapANewConnectionIsClosedAtOnce) {
    // A handshake timeout no test waits for: a close seen here is the cap's.
    start_tls([](auto& l) {
        l.max_handshakes = 2;
        l.handshake_timeout = std::chrono::minutes(10);
    });
    HttpClient first(port());
    HttpClient second(port());
    ASSERT_TRUE(eventually([&] { return service().handshakes() == 2; }));

    HttpClient third(port());
    EXPECT_TRUE(third.closed_by_server());
    EXPECT_EQ(service().refused_handshakes(), 1u);
    EXPECT_EQ(service().figures().handshakes_refused, 1u);
    EXPECT_EQ(service().handshakes(), 2u);

    // The slots come back when their clients go.
    first.close();
    second.close();
    ASSERT_TRUE(eventually([&] { return service().handshakes() == 0; }));
    const CurlResult r = https("GET", "/healthz");
    ASSERT_EQ(r.exit_code, 0) << r.body;
    EXPECT_EQ(r.status, 200u);
}

TEST_F(HttpsTest, AHandshakeDoneWhenTheConnectionsAreAllTakenIsClosed) {
    start_tls([](auto& l) { l.max_connections = 1; });
    // A long-poll holds the one connection slot until a message comes.
    auto poll = std::async(std::launch::async, [this] {
        return https("POST", "/v1/queues/q/leases", R"({"wait": "50s"})");
    });
    ASSERT_TRUE(eventually([&] { return service().connections() == 1; }));

    EXPECT_NE(https("GET", "/healthz").exit_code, 0);
    EXPECT_EQ(service().connections(), 1u);

    Client(redis().url()).queue("q").send("m");
    const CurlResult polled = poll.get();
    ASSERT_EQ(polled.exit_code, 0) << polled.body;
    EXPECT_EQ(polled.status, 200u) << polled.body;
    ASSERT_TRUE(eventually([&] { return service().connections() == 0; }));
    EXPECT_EQ(https("GET", "/healthz").status, 200u);
}

TEST(TlsCertificateDatesTest, ACertificateOutOfItsDatesOrExpiringSoonIsWarnedOf) {
    const TestCertificates certs;
    const auto warning = [](const std::string& cert, const std::string& key) {
        return server::http::TlsContext(server::http::TlsFiles{cert, key}).date_warning();
    };
    const auto expired = warning(certs.expired_cert(), certs.expired_key());
    ASSERT_TRUE(expired.has_value());
    EXPECT_NE(expired->find(certs.expired_cert() + " expired on 2020-01-02T00:00:00Z"),
              std::string::npos)
        << *expired;
    const auto early = warning(certs.not_yet_valid_cert(), certs.not_yet_valid_key());
    ASSERT_TRUE(early.has_value());
    EXPECT_NE(early->find(certs.not_yet_valid_cert() + " is not valid before 2090-01-01T00:00:00Z"),
              std::string::npos)
        << *early;
    // Valid for two days: within the 14 days warned of.
    const auto soon = warning(certs.server_cert(), certs.server_key());
    ASSERT_TRUE(soon.has_value());
    EXPECT_NE(soon->find(certs.server_cert() + " expires on "), std::string::npos) << *soon;
    // Valid for 30 days: nothing to say.
    const auto fresh = make_self_signed(certs.dir(), "fresh-");
    ASSERT_FALSE(fresh.cert.empty());
    EXPECT_EQ(warning(fresh.cert, fresh.key), std::nullopt);
}

TEST_F(HttpsTest, AnUnusableCertificateOrKeyIsRefusedNamingTheFile) {
    const auto files = make_self_signed(redis().dir());
    ASSERT_FALSE(files.cert.empty());
    const auto refused = [&](const std::string& cert, const std::string& key) {
        try {
            start([&](server::service::ServiceConfig& c) {
                c.tls = server::http::TlsFiles{cert, key};
            });
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("started");
    };
    const std::string missing = (redis().dir() / "none.pem").string();
    EXPECT_NE(refused(missing, files.key).find("--listen-tls-cert: cannot read"),
              std::string::npos);
    EXPECT_NE(refused(files.cert, missing).find("--listen-tls-key: cannot read"),
              std::string::npos);
    const auto other = make_self_signed(redis().dir(), "other-");
    EXPECT_NE(refused(files.cert, other.key).find("not the certificate's"), std::string::npos);
    EXPECT_NE(refused(files.key, files.key).find("is not a PEM certificate"), std::string::npos);
}

TEST(ServeTlsProcessTest, OnlyOneTlsFlagOrAnUnreadableFileExits2SayingWhy) {
    RedisServer redis;
    const auto files = make_self_signed(redis.dir());
    ASSERT_FALSE(files.cert.empty());
    const std::vector<std::string> base = {"serve", "--listen", listen_arg(free_port()), "--redis",
                                           redis.url()};
    const auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args, {.timeout = std::chrono::seconds(60)});
    };
    const CliResult cert_only = run({"--listen-tls-cert", files.cert});
    EXPECT_EQ(cert_only.exit_code, 2);
    EXPECT_NE(cert_only.err.find("give both or neither"), std::string::npos) << cert_only.err;
    const CliResult key_only = run({"--listen-tls-key", files.key});
    EXPECT_EQ(key_only.exit_code, 2);
    const CliResult unreadable = run(
        {"--listen-tls-cert", (redis.dir() / "none.pem").string(), "--listen-tls-key", files.key});
    EXPECT_EQ(unreadable.exit_code, 2);
    EXPECT_NE(unreadable.err.find("none.pem"), std::string::npos) << unreadable.err;
}

TEST(ServeTlsProcessTest, SighupRereadsTheCertificate) {
    RedisServer redis;
    const auto first = make_self_signed(redis.dir());
    ASSERT_FALSE(first.cert.empty());
    const std::string first_ca = (redis.dir() / "first-ca.pem").string();
    std::filesystem::copy_file(first.cert, first_ca);
    const int port = free_port();
    CliProcess serve({"serve", "--listen", listen_arg(port), "--redis", redis.url(),
                      "--listen-tls-cert", first.cert, "--listen-tls-key", first.key});
    ASSERT_TRUE(await_listening(serve));
    const auto p = static_cast<std::uint16_t>(port);
    EXPECT_EQ(curl_https(p, first_ca, "GET", "/healthz").status, 200u);

    // A renewed certificate in the same files: new connections get it after SIGHUP.
    const auto second = make_self_signed(redis.dir());
    ASSERT_FALSE(second.cert.empty());
    EXPECT_EQ(curl_https(p, first_ca, "GET", "/healthz").status, 200u);  // not yet
    serve.signal(SIGHUP);
    ASSERT_TRUE(serve.await_output([](const std::string&, const std::string& err) {
        return err.find("TLS certificate re-read") != std::string::npos;
    }));
    EXPECT_EQ(curl_https(p, second.cert, "GET", "/healthz").status, 200u);
    EXPECT_NE(curl_https(p, first_ca, "GET", "/healthz").exit_code, 0);

    // A broken file leaves the certificate in force.
    { std::ofstream(second.key) << "not a key\n"; }
    serve.signal(SIGHUP);
    ASSERT_TRUE(serve.await_output([](const std::string&, const std::string& err) {
        return err.find("TLS certificate not re-read") != std::string::npos;
    }));
    EXPECT_EQ(curl_https(p, second.cert, "GET", "/healthz").status, 200u);
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

// Served all the same (an operator may be midway through a rotation), with a warning on stderr
// naming the file and the date, at start and at each SIGHUP.
TEST(ServeTlsProcessTest, ACertificateOutOfItsDatesIsWarnedOfAtStartAndAtReload) {
    RedisServer redis;
    const TestCertificates certs;
    const std::string cert = (redis.dir() / "cert.pem").string();
    const std::string key = (redis.dir() / "key.pem").string();
    const auto install = [&](const std::string& from_cert, const std::string& from_key) {
        const auto overwrite = std::filesystem::copy_options::overwrite_existing;
        std::filesystem::copy_file(from_cert, cert, overwrite);
        std::filesystem::copy_file(from_key, key, overwrite);
    };
    install(certs.expired_cert(), certs.expired_key());
    const int port = free_port();
    CliProcess serve({"serve", "--listen", listen_arg(port), "--redis", redis.url(),
                      "--listen-tls-cert", cert, "--listen-tls-key", key});
    ASSERT_TRUE(serve.await_output([&](const std::string&, const std::string& err) {
        return err.find("warning: --listen-tls-cert: the certificate in " + cert +
                        " expired on 2020-01-02T00:00:00Z") != std::string::npos;
    }));
    ASSERT_TRUE(await_listening(serve));

    install(certs.not_yet_valid_cert(), certs.not_yet_valid_key());
    serve.signal(SIGHUP);
    ASSERT_TRUE(serve.await_output([&](const std::string&, const std::string& err) {
        return err.find("warning: --listen-tls-cert: the certificate in " + cert +
                        " is not valid before 2090-01-01T00:00:00Z") != std::string::npos;
    }));
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

}  // namespace
}  // namespace delayq::test
