// The Redis password kept off the command line: a file, the environment or the URL, in that
// order; and never in anything delayq prints.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "cli/cli_fixture.hpp"
#include "support/acl.hpp"

namespace delayq::test {
namespace {

constexpr const char* kSecret = "pw-never-shown-42";

class PasswordCliTest : public CliTest {
  protected:
    PasswordCliTest() : locked_(RedisServerOptions{.password = kSecret}) {}

    std::string host() const { return "127.0.0.1:" + std::to_string(locked_.port()); }
    std::string file_with(const std::string& name, const std::string& content) const {
        const auto path = scratch_ / name;
        std::ofstream(path) << content;
        return path.string();
    }
    CliOptions env(std::vector<std::string> vars) const {
        return {.env = std::move(vars), .unset = {"DELAYQ_REDIS_PASSWORD"}};
    }
    // Sends one message with `args` around it and checks it arrived.
    void expect_works(std::vector<std::string> args, const CliOptions& options,
                      const std::string& what) {
        const long long before = locked_.zcard(queue_key("q", "pending"));
        args.insert(args.end(), {"send", "q", "x"});
        const CliResult r = cli(args, options);
        EXPECT_EQ(r.exit_code, 0) << what << ": " << r.err;
        EXPECT_EQ(locked_.zcard(queue_key("q", "pending")), before + 1) << what;
    }

    RedisServer locked_;
};

TEST_F(PasswordCliTest, EveryWayOfGivingThePasswordWorks) {
    const std::string url = "DELAYQ_REDIS_URL=redis://" + host();
    expect_works({}, env({"DELAYQ_REDIS_URL=redis://:" + std::string(kSecret) + "@" + host()}),
                 "in the URL");
    expect_works({}, env({url, std::string("DELAYQ_REDIS_PASSWORD=") + kSecret}),
                 "in the environment");
    const std::string file = file_with("pass", std::string(kSecret) + "\n");
    expect_works({"--redis-password-file", file}, env({url}), "in a file, before the command");
    std::vector<std::string> after = {"send", "q", "x", "--redis-password-file", file};
    const CliResult r = cli(after, env({url}));
    EXPECT_EQ(r.exit_code, 0) << "in a file, after the arguments: " << r.err;

    ASSERT_FALSE(add_acl_user(locked_, "alice", kSecret).is_error());
    expect_works({"--redis-password-file", file}, env({"DELAYQ_REDIS_URL=redis://alice@" + host()}),
                 "an ACL user");
}

TEST_F(PasswordCliTest, FileBeatsEnvironmentBeatsUrl) {
    const std::string right = file_with("right", kSecret);
    const std::string wrong = file_with("wrong", "nope");
    const std::string bad_url = "DELAYQ_REDIS_URL=redis://:nope@" + host();
    expect_works({}, env({bad_url, std::string("DELAYQ_REDIS_PASSWORD=") + kSecret}),
                 "environment over URL");
    expect_works({"--redis-password-file", right}, env({bad_url, "DELAYQ_REDIS_PASSWORD=nope"}),
                 "file over environment");
    const CliResult r = cli({"--redis-password-file", wrong, "stats", "q"},
                            env({"DELAYQ_REDIS_URL=redis://" + host(),
                                 std::string("DELAYQ_REDIS_PASSWORD=") + kSecret}));
    EXPECT_EQ(r.exit_code, 1) << "the file wins even when wrong: " << r.err;
}

TEST_F(PasswordCliTest, BadPasswordFilesExit2WritingNothing) {
    const std::string url = "DELAYQ_REDIS_URL=redis://:" + std::string(kSecret) + "@" + host();
    for (const std::string& file :
         {file_with("empty", ""), file_with("newline", "\n"), (scratch_ / "missing").string()}) {
        const CliResult r = cli({"--redis-password-file", file, "send", "q", "x"}, env({url}));
        EXPECT_EQ(r.exit_code, 2) << file << ": " << r.err;
        EXPECT_NE(r.err.find("--redis-password-file"), std::string::npos) << r.err;
    }
    EXPECT_EQ(locked_.dbsize(), 0);
}

TEST_F(PasswordCliTest, NoOutputShowsThePassword) {
    ASSERT_FALSE(add_acl_user(locked_, "alice", "the-right-one").is_error());
    const std::string secret_env = std::string("DELAYQ_REDIS_PASSWORD=") + kSecret;
    const std::string wrong_url =
        "DELAYQ_REDIS_URL=redis://alice:" + std::string(kSecret) + "@" + host();
    const std::string nowhere = "DELAYQ_REDIS_URL=redis://alice:" + std::string(kSecret) +
                                "@127.0.0.1:" + std::to_string(free_port());
    const std::string file = file_with("pass", kSecret);
    const std::vector<std::pair<std::vector<std::string>, CliOptions>> runs = {
        {{"send", "q", "x"}, env({wrong_url})},
        {{"stats", "q"}, env({wrong_url})},
        {{"queue", "info", "q"}, env({wrong_url})},
        {{"queues"}, env({nowhere})},
        {{"consume", "q", "--max", "1", "--timeout", "1s"}, env({nowhere})},
        {{"--redis-password-file", file, "peek", "q"},
         env({"DELAYQ_REDIS_URL=redis://alice@" + host()})},
        {{"stats", "q"}, env({"DELAYQ_REDIS_URL=redis://alice@" + host(), secret_env})},
        {{"--help"}, env({wrong_url, secret_env})},
        {{"send", "--help"}, env({wrong_url, secret_env})},
        {{"serve", "--help"}, env({wrong_url, secret_env})},
    };
    for (const auto& [args, options] : runs) {
        const CliResult r = cli(args, options);
        if (args.back() != "--help") {
            EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
        }
        EXPECT_EQ(r.out.find(kSecret), std::string::npos) << args[0] << ": " << r.out;
        EXPECT_EQ(r.err.find(kSecret), std::string::npos) << args[0] << ": " << r.err;
    }
    EXPECT_EQ(locked_.dbsize(), 0);
}

TEST_F(PasswordCliTest, ServeShowsItsRedisMasked) {
    const std::string url = "redis://alice:" + std::string(kSecret) + "@" + host();
    auto serve = start(
        {"serve", "--listen", "127.0.0.1:" + std::to_string(free_port()), "--io-threads", "1"},
        env({"DELAYQ_REDIS_URL=" + url}));
    ASSERT_TRUE(serve->await_output([](const std::string&, const std::string& err) {
        return err.find("listening on") != std::string::npos;
    }));
    serve->signal(SIGTERM);
    const CliResult done = serve->wait();
    EXPECT_NE(done.err.find("Redis redis://alice:***@" + host()), std::string::npos) << done.err;
    EXPECT_EQ(done.err.find(kSecret), std::string::npos) << done.err;
}

}  // namespace
}  // namespace delayq::test
