// `delayq acl`: its lines, fed to redis-cli as an administrator would, make users that can do
// their role's work and nothing else; docs/design.md shows its output.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using AclCliTest = CliTest;

constexpr const char* kPassword = "acl-cli-secret";

struct Role {
    const char* user;
    const char* role;
};
constexpr Role kRoles[] = {
    {"dash", "reader"}, {"shop", "writer"}, {"hook", "pusher"}, {"ops", "admin"}};

class AclUsers : public AclCliTest {
  protected:
    // Applies `delayq acl` for `user` and gives it the password.
    void make_user(const std::string& user, const std::string& role, const std::string& queues) {
        const CliResult r = cli({"acl", "--user", user, "--role", role, "--queues", queues});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        redis_cli(redis_, r.out + "ACL SETUSER " + user + " >" + kPassword + "\n");
        const RawReply rules = redis_.command({"ACL", "GETUSER", user});
        ASSERT_FALSE(rules.is_error()) << rules.str;
    }
    CliOptions as(const std::string& user) const {
        return {.env = {"DELAYQ_REDIS_URL=redis://" + user +
                            "@127.0.0.1:" + std::to_string(redis_.port()),
                        std::string("DELAYQ_REDIS_PASSWORD=") + kPassword}};
    }
    void expect_refused(const std::vector<std::string>& args, const std::string& user,
                        const std::string& command) const {
        const CliResult r = cli(args, as(user));
        EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
        // A script not yet cached on the server is refused as EVAL (EVAL_RO), a call to the
        // loaded function library as FCALL (FCALL_RO).
        const std::string eval = command == "EVALSHA" ? "EVAL" : "EVAL_RO";
        const std::string fcall = command == "EVALSHA" ? "FCALL" : "FCALL_RO";
        const auto refused = [&](const std::string& c) {
            return r.err.find("permission denied: Redis refused " + c + " ") != std::string::npos;
        };
        EXPECT_TRUE(refused(command) || refused(eval) || refused(fcall))
            << args[0] << ": " << r.err;
        EXPECT_EQ(r.err.find(kPassword), std::string::npos) << r.err;
    }
};

TEST_F(AclUsers, EachRoleDoesItsWorkOnItsQueuesOnly) {
    make_user("dash", "reader", "orders*");
    make_user("shop", "writer", "orders*");
    make_user("ops", "admin", "orders");
    send("billing", "not yours");

    const CliResult sent = cli({"send", "orders", "hello", "--id", "o1"}, as("shop"));
    ASSERT_EQ(sent.exit_code, 0) << sent.err;
    EXPECT_EQ(cli({"send", "orders-eu", "later", "--delay", "1h"}, as("shop")).exit_code, 0);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"stats", "orders"}, {"peek", "orders"}, {"queue", "info", "orders"}}) {
        const CliResult r = cli(args, as("dash"));
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    }
    // SCAN shows every queue's name; the listings leave out those the user may not read.
    for (const auto& args : std::vector<std::vector<std::string>>{{"queues"}, {"stats"}}) {
        const CliResult r = cli(args, as("dash"));
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
        EXPECT_NE(r.out.find("orders-eu"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("billing"), std::string::npos) << r.out;
        EXPECT_NE(r.err.find("1 queue(s) not shown"), std::string::npos) << r.err;
    }
    const std::string before = fingerprint();
    expect_refused({"send", "orders", "x"}, "dash", "EVALSHA");
    expect_refused({"consume", "orders", "--max", "1"}, "dash", "EVALSHA");
    expect_refused({"queue", "pause", "orders"}, "dash", "EVALSHA");
    expect_refused({"queue", "delete", "orders", "--yes"}, "dash", "EVALSHA");
    expect_refused({"stats", "billing"}, "dash", "EVALSHA_RO");
    EXPECT_EQ(fingerprint(), before);

    const CliResult got = cli({"consume", "orders", "--max", "1", "--timeout", "60s"}, as("shop"));
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_NE(got.out.find("hello"), std::string::npos) << got.out;
    expect_refused({"send", "billing", "x"}, "shop", "EVALSHA");
    expect_refused({"peek", "billing"}, "shop", "EVALSHA_RO");
    expect_refused({"queue", "delete", "orders", "--yes"}, "shop", "EVALSHA");

    EXPECT_EQ(cli({"queue", "set", "orders", "--max-attempts", "3"}, as("ops")).exit_code, 0);
    const CliResult deleted = cli({"queue", "delete", "orders", "--yes"}, as("ops"));
    EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
    EXPECT_EQ(redis_.keys("dq:{orders}:*"), std::vector<std::string>{});
    expect_refused({"queue", "delete", "orders-eu", "--yes"}, "ops", "EVALSHA");
}

// --serve adds the one key serve's lease key lives in, through a selector: SET there, and
// nowhere else (a writer's SET on a queue's keys would let it overwrite them with strings).
TEST_F(AclUsers, ServeGrantsSetOnTheSharedSecretAndNothingElse) {
    const CliResult r =
        cli({"acl", "--user", "api", "--role", "writer", "--queues", "*", "--serve"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("ACL SETUSER api \"(~dq:shared-secret +set)\"\n"), std::string::npos)
        << r.out;
    redis_cli(redis_, r.out);
    const auto dry = [&](const std::vector<std::string>& command) {
        std::vector<std::string> args = {"ACL", "DRYRUN", "api"};
        args.insert(args.end(), command.begin(), command.end());
        return redis_.command(args).str;
    };
    EXPECT_EQ(dry({"SET", "dq:shared-secret", "x", "NX", "GET"}), "OK");
    EXPECT_NE(dry({"SET", "dq:{orders}:msg", "x"}), "OK");
    EXPECT_NE(dry({"SET", "other", "x"}), "OK");
    // Without --serve, '*' does not cover the key: it has no hash tag.
    make_user("plain", "writer", "*");
    EXPECT_NE(
        redis_.command({"ACL", "DRYRUN", "plain", "SET", "dq:shared-secret", "x", "NX", "GET"}).str,
        "OK");
}

TEST_F(AclCliTest, DesignDocShowsTheOutputOfTheCommand) {
    std::string expected = "```\n";
    for (const Role& role : kRoles) {
        const CliResult r =
            cli({"acl", "--user", role.user, "--role", role.role, "--queues", "orders*"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        expected += std::string("$ delayq acl --user ") + role.user + " --role " + role.role +
                    " --queues 'orders*'\n" + r.out;
    }
    expected += "```\n";
    std::ifstream in(std::string(DELAYQ_SOURCE_DIR) + "/docs/design.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const std::string begin = "<!-- delayq acl output: begin -->\n";
    const auto from = doc.find(begin);
    const auto to = doc.find("<!-- delayq acl output: end -->");
    ASSERT_NE(from, std::string::npos);
    ASSERT_NE(to, std::string::npos);
    EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), expected);
}

TEST_F(AclCliTest, BadInputExits2) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"acl", "--user", "u", "--role", "owner", "--queues", "q"},
             {"acl", "--user", "u", "--role", "reader", "--queues", "a*b"},
             {"acl", "--user", "u", "--role", "reader", "--queues", "{q}"},
             {"acl", "--user", "two words", "--role", "reader", "--queues", "q"},
             {"acl", "--role", "reader", "--queues", "q"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << args.size() << " arguments: " << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST_F(AclCliTest, GlobCharactersAreEscapedForRedisCli) {
    const CliResult r = cli({"acl", "--user", "u", "--role", "reader", "--queues", "a\\*,b?*"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"%R~dq:{a\\\\*}:*\" \"&dq:{a\\\\*}:wake\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("%R~dq:{b\\\\?*}:*"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace delayq::test
