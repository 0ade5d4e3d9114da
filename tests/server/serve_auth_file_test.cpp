// `delayq serve --auth-file` on a file with a queue pattern QueuePattern refuses (a byte no queue
// name may hold): the file is not served, at the start or on SIGHUP, and is left as it is.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <string>

#include "auth/queue_pattern.hpp"
#include "auth/scope.hpp"
#include "auth/token_file.hpp"
#include "cli/cli_runner.hpp"
#include "server/support/http_client.hpp"
#include "server/support/serve_process.hpp"
#include "server/support/serve_with_tokens.hpp"
#include "support/fixture.hpp"
#include "support/read_file.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {
namespace {

// An entry for `token` on the queues `q` and `{orders}`: a pattern with braces, which no queue
// name holds.
void append_braced_entry(const std::string& file, const std::string& token) {
    std::ofstream out(file, std::ios::app | std::ios::binary);
    out << "braced " << server::token_sha256_hex(token) << " send q,{orders}\n";
}

TEST(ServeAuthFileTest, AFileWithARefusedPatternIsNotServed) {
    RedisServer redis;
    const std::string file = (redis.dir() / "tokens").string();
    server::add_token(file, "first", {server::Scope::kSend}, {*server::QueuePattern::parse("*")});
    append_braced_entry(file, "dqt_braced");
    const std::string before = read_file(file);
    const CliResult r = run_cli(
        {"serve", "--listen", listen_arg(free_port()), "--redis", redis.url(), "--auth-file", file},
        {.timeout = std::chrono::seconds(60)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--auth-file: auth file line 2: bad queue pattern"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("listening on"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(file), before);
}

TEST(ServeAuthFileTest, SighupKeepsTheOldTokensWhenAPatternIsRefused) {
    RedisServer redis;
    ServeWithTokens s(redis);
    auto& [file, first, port, serve, http] = s;

    // A good entry, then one with a refused pattern: the file is read whole or not at all.
    const std::string second = s.add_sender("second");
    append_braced_entry(file, "dqt_braced");
    const std::string before = read_file(file);
    serve.signal(SIGHUP);
    ASSERT_TRUE(serve.await_output([](const std::string&, const std::string& err) {
        return err.find("auth file not re-read") != std::string::npos;
    }));
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "a"}}, first).status, 201u);
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "b"}}, second).status, 401u);
    EXPECT_EQ(http.post("/v1/queues/q/messages", {{"payload", "c"}}, "dqt_braced").status, 401u);
    serve.signal(SIGTERM);
    const CliResult done = serve.wait();
    EXPECT_EQ(done.exit_code, 0) << done.err;
    EXPECT_NE(done.err.find("the old tokens stay: auth file line 3: bad queue pattern"),
              std::string::npos)
        << done.err;
    EXPECT_EQ(read_file(file), before);
}

}  // namespace
}  // namespace delayq::test
