// `delayq serve` over a TLS-only Redis: the --redis-tls-* options reach the service's client as
// they reach every other command's.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "cli/cli_runner.hpp"
#include "server/support/http_client.hpp"
#include "server/support/serve_process.hpp"
#include "support/redis_server.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

RedisServer tls_redis(const TestCertificates& certificates) {
    return RedisServer({.tls = RedisServerTls{.cert_file = certificates.server_cert(),
                                              .key_file = certificates.server_key(),
                                              .ca_file = certificates.ca()}});
}

// `delayq serve` on `port` over `redis`, trusting `ca` for it (no TLS setting from the
// environment).
CliProcess serve_over(const RedisServer& redis, const std::string& ca, int port) {
    return CliProcess({"serve", "--listen", listen_arg(port), "--redis", redis.url(),
                       "--redis-tls-ca", ca, "--io-threads", "1"},
                      {.unset = {"DELAYQ_REDIS_TLS_CA", "DELAYQ_REDIS_TLS_INSECURE_SKIP_VERIFY"}});
}

TEST(ServeRedisTlsTest, ServesOverTls) {
    const TestCertificates certificates;
    RedisServer redis = tls_redis(certificates);
    const int port = free_port();
    CliProcess serve = serve_over(redis, certificates.ca(), port);
    ASSERT_TRUE(await_listening(serve));
    HttpClient http(static_cast<std::uint16_t>(port));
    const HttpResult r = http.post("/v1/queues/q/messages", {{"payload", "over tls"}});
    ASSERT_EQ(r.status, 201u) << r.body;
    EXPECT_EQ(redis.zcard(queue_key("q", "pending")), 1);
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

TEST(ServeRedisTlsTest, UnverifiableRedisIsNotReady) {
    const TestCertificates certificates;
    RedisServer redis = tls_redis(certificates);
    const int port = free_port();
    CliProcess serve = serve_over(redis, certificates.other_ca(), port);
    ASSERT_TRUE(await_listening(serve));
    HttpClient http(static_cast<std::uint16_t>(port));
    EXPECT_EQ(http.get("/readyz").status, 503u);
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "x"}}).status, 503u);
    EXPECT_EQ(redis.dbsize(), 0);
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

}  // namespace
}  // namespace delayq::test
