// The `delayq serve` binary itself: it serves, refuses to expose itself without auth, re-reads
// its auth file on SIGHUP and stops gracefully on SIGTERM.
#include "server/support/serve_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <delayq/delayq.hpp>
#include <string>

#include "auth/queue_pattern.hpp"
#include "auth/scope.hpp"
#include "auth/token_file.hpp"
#include "cli/cli_runner.hpp"
#include "server/support/http_client.hpp"
#include "server/support/serve_with_tokens.hpp"
#include "support/fixture.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {
namespace {

TEST(ServeProcessTest, ServesThenStopsGracefullyOnSigterm) {
    RedisServer redis;
    const int port = free_port();
    CliProcess serve(
        {"serve", "--listen", listen_arg(port), "--redis", redis.url(), "--io-threads", "1"});
    ASSERT_TRUE(await_listening(serve));
    HttpClient http(static_cast<std::uint16_t>(port));
    const HttpResult r = http.post("/v1/queues/q/messages", {{"payload", "over http"}});
    ASSERT_EQ(r.status, 201u) << r.body;
    EXPECT_EQ(Client(redis.url()).admin("q").get(r.json()["id"].get<std::string>())->payload,
              "over http");
    serve.signal(SIGTERM);
    const CliResult done = serve.wait();
    EXPECT_EQ(done.exit_code, 0) << done.err;
    EXPECT_TRUE(http.closed_by_server());
    EXPECT_NE(done.err.find("stopped"), std::string::npos) << done.err;
    // The access log's line, written out by the graceful stop at the latest.
    EXPECT_NE(done.err.find(R"("method":"POST","target":"/v1/queues/q/messages","status":201,)"),
              std::string::npos)
        << done.err;
}

TEST(ServeProcessTest, WithoutAnAuthFileANonLoopbackListenExits2SayingWhy) {
    RedisServer redis;
    const CliResult r = run_cli(
        {"serve", "--listen", "0.0.0.0:" + std::to_string(free_port()), "--redis", redis.url()},
        {.timeout = std::chrono::seconds(60)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--auth-file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("loopback"), std::string::npos) << r.err;
}

TEST(ServeProcessTest, SighupRereadsTheAuthFile) {
    RedisServer redis;
    ServeWithTokens s(redis);
    auto& [file, first, port, serve, http] = s;
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "a"}}, first).status, 201u);

    const std::string second = s.add_sender("second");
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "b"}}, second).status, 401u);
    serve.signal(SIGHUP);
    ASSERT_TRUE(serve.await_output([](const std::string&, const std::string& err) {
        return err.find("auth file re-read") != std::string::npos;
    }));
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "b"}}, second).status, 201u);
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

}  // namespace
}  // namespace delayq::test
