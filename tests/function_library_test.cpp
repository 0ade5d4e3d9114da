// The operations as one Redis function library (design.md, section 4, Function library): loaded
// on a fresh server, found by a second client, never called when a library of its name holds
// other code, healed after FUNCTION FLUSH, and replaced by scripts (EVALSHA) where the server
// refuses it: a full Redis, an ACL user without the rights. Each test picks its clients' engine
// itself, whatever DELAYQ_ENGINE says.
#include <future>
#include <span>
#include <string>
#include <vector>

#include "support/acl.hpp"
#include "support/command_calls.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using FunctionLibraryTest = RedisTest;

constexpr ClientOptions kAuto{};

long long library_calls(const RedisServer& server) {
    return command_calls(server, "evalsha") + command_calls(server, "evalsha_ro") +
           command_calls(server, "eval") + command_calls(server, "eval_ro");
}

// One round of everything a producer, a consumer and an operator do; all must succeed.
void exercise(Client& c, const std::string& name = "q") {
    Queue q = c.queue(name);
    QueueAdmin admin = c.admin(name);
    Leases leases = c.leases(name);
    q.send("one", {.id = "a"});
    q.send_async("two").get();
    const FetchResult f = leases.fetch(10, std::chrono::seconds(30));
    ASSERT_EQ(f.deliveries.size(), 2U);
    EXPECT_EQ(leases.ack(lease_of(f.deliveries[0])).status, LeaseStatus::kAcked);
    EXPECT_EQ(leases.ack(lease_of(f.deliveries[1])).status, LeaseStatus::kAcked);
    EXPECT_EQ(admin.stats().totals.acked, 2U);
    EXPECT_FALSE(admin.get("a").has_value());
}

std::string library_name(const RedisServer& server) {
    return Client(server.url(), {.engine = ScriptEngine::kScripts}).engine().library;
}

TEST_F(FunctionLibraryTest, LoadsOnAFreshServerAndCallsFunctions) {
    Client c(server().url(), kAuto);
    exercise(c);
    const EngineStatus status = c.engine();
    EXPECT_EQ(status.mode, ScriptEngine::kFunctions) << status.reason;
    EXPECT_TRUE(status.reason.empty());
    EXPECT_TRUE(status.library.starts_with("delayq_2_")) << status.library;
    EXPECT_EQ(status.library.size(), std::string("delayq_2_").size() + 12);
    const RawReply listed = server().command({"FUNCTION", "LIST", "LIBRARYNAME", status.library});
    ASSERT_EQ(listed.elements.size(), 1U);
    EXPECT_EQ(command_calls(server(), "function|load"), 1);
    EXPECT_GT(command_calls(server(), "fcall"), 0);
    EXPECT_GT(command_calls(server(), "fcall_ro"), 0);  // stats and get
    EXPECT_EQ(library_calls(server()), 0);
}

TEST_F(FunctionLibraryTest, ASecondClientFindsTheLibraryAndDoesNotLoadItAgain) {
    Client first(server().url(), kAuto);
    exercise(first);
    Client second(server().url(), kAuto);
    exercise(second, "other");
    EXPECT_EQ(second.engine().mode, ScriptEngine::kFunctions);
    EXPECT_EQ(command_calls(server(), "function|load"), 1);
    EXPECT_EQ(command_calls(server(), "function|list"), 2);
    EXPECT_EQ(library_calls(server()), 0);
}

TEST_F(FunctionLibraryTest, ALibraryOfItsNameWithOtherCodeIsNeverCalled) {
    const std::string name = library_name(server());
    // A forged send that would leave a mark.
    const std::string forged = "#!lua name=" + name + "\nredis.register_function('" + name +
                               "_send', function(keys, args) redis.call('SET', 'forged', '1') "
                               "return 1 end)\n";
    ASSERT_FALSE(server().command({"FUNCTION", "LOAD", forged}).is_error());
    Client c(server().url(), kAuto);
    exercise(c);
    const EngineStatus status = c.engine();
    EXPECT_EQ(status.mode, ScriptEngine::kScripts);
    EXPECT_NE(status.reason.find("other code"), std::string::npos) << status.reason;
    EXPECT_EQ(server().integer({"EXISTS", "forged"}), 0);
    EXPECT_EQ(command_calls(server(), "fcall"), 0);
    // Never replaced: the other library stays as it was.
    EXPECT_EQ(command_calls(server(), "function|load"), 1);

    Client strict(server().url(), {.engine = ScriptEngine::kFunctions});
    EXPECT_THROW(strict.queue("q").send("x"), ConfigurationError);
}

TEST_F(FunctionLibraryTest, FunctionFlushBetweenCallsIsHealed) {
    Client c(server().url(), kAuto);
    Queue q = c.queue("q");
    Leases leases = c.leases("q");
    const auto flush = [&] { ASSERT_FALSE(server().command({"FUNCTION", "FLUSH"}).is_error()); };
    q.send("first");
    flush();
    q.send("second");
    flush();
    // Pipelined sends: each call behind another meets the missing function too.
    std::vector<std::future<SendResult>> pending;
    for (int i = 0; i < 50; ++i) pending.push_back(q.send_async("async"));
    for (auto& p : pending) p.get();
    flush();
    const FetchResult f = leases.fetch(100, std::chrono::seconds(30));
    ASSERT_EQ(f.deliveries.size(), 52U);
    flush();
    EXPECT_EQ(leases.ack(lease_of(std::span(f.deliveries))).size(), 52U);
    flush();
    EXPECT_EQ(c.admin("q").stats().totals.acked, 52U);
    EXPECT_EQ(c.engine().mode, ScriptEngine::kFunctions);
    EXPECT_GE(command_calls(server(), "function|load"), 5);
}

TEST_F(FunctionLibraryTest, AFullRedisWithoutTheLibraryStillDrainsByScripts) {
    Client c(server().url(), kAuto);
    Queue q = c.queue("q");
    send_many(q, 20);
    ASSERT_FALSE(server().command({"FUNCTION", "FLUSH"}).is_error());
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}).is_error());
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory", "1"}).is_error());
    Leases leases = c.leases("q");
    const FetchResult f = leases.fetch(100, std::chrono::seconds(30));
    ASSERT_EQ(f.deliveries.size(), 20U);
    for (const auto& r : leases.ack(lease_of(std::span(f.deliveries)))) {
        EXPECT_EQ(r.status, LeaseStatus::kAcked);
    }
    EXPECT_THROW(q.send("refused"), OutOfMemoryError);
    const EngineStatus status = c.engine();
    EXPECT_EQ(status.mode, ScriptEngine::kScripts);
    EXPECT_NE(status.reason.find("OOM"), std::string::npos) << status.reason;
    EXPECT_GT(library_calls(server()), 0);

    // With room again, a new connection tries functions again.
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory", "0"}).is_error());
    ASSERT_FALSE(server().command({"CLIENT", "KILL", "TYPE", "normal"}).is_error());
    q.send("after");
    EXPECT_EQ(c.engine().mode, ScriptEngine::kFunctions);
}

TEST_F(FunctionLibraryTest, AUserWithoutFunctionRightsRunsByScripts) {
    ASSERT_FALSE(
        add_acl_user(server(), "nofn", "pw", {"-function", "-fcall", "-fcall_ro"}).is_error());
    Client c("redis://nofn:pw@127.0.0.1:" + std::to_string(server().port()), kAuto);
    exercise(c);
    const EngineStatus status = c.engine();
    EXPECT_EQ(status.mode, ScriptEngine::kScripts);
    EXPECT_NE(status.reason.find("NOPERM"), std::string::npos) << status.reason;
    EXPECT_EQ(command_calls(server(), "fcall"), 0);

    Client strict("redis://nofn:pw@127.0.0.1:" + std::to_string(server().port()),
                  {.engine = ScriptEngine::kFunctions});
    EXPECT_THROW(strict.queue("q").send("x"), ConfigurationError);
}

TEST_F(FunctionLibraryTest, AUserWhoMayLoadButNotCallRunsByScripts) {
    ASSERT_FALSE(add_acl_user(server(), "nocall", "pw", {"-fcall", "-fcall_ro"}).is_error());
    Client c("redis://nocall:pw@127.0.0.1:" + std::to_string(server().port()), kAuto);
    exercise(c);
    const EngineStatus status = c.engine();
    EXPECT_EQ(status.mode, ScriptEngine::kScripts);
    EXPECT_NE(status.reason.find("may not call functions"), std::string::npos) << status.reason;
}

TEST_F(FunctionLibraryTest, AclRolesCallTheLibraryOnceAnotherUserLoadedIt) {
    const auto role_client = [&](const std::string& user, AclRole role) {
        for (const auto& command : acl_commands(user, role, {*QueuePattern::parse("q*")})) {
            EXPECT_FALSE(server().command(command).is_error()) << redis_cli_line(command);
        }
        EXPECT_FALSE(server().command({"ACL", "SETUSER", user, ">pw"}).is_error());
        return Client("redis://" + user + ":pw@127.0.0.1:" + std::to_string(server().port()),
                      kAuto);
    };
    // No role may load it: the writer runs scripts, and says why.
    Client early = role_client("early", AclRole::kWriter);
    exercise(early, "q1");
    EXPECT_EQ(early.engine().mode, ScriptEngine::kScripts);
    EXPECT_NE(early.engine().reason.find("FUNCTION LOAD"), std::string::npos);
    EXPECT_EQ(command_calls(server(), "fcall"), 0);

    // Loaded by a user who may (here the default user), every role calls it.
    EXPECT_EQ(Client(server().url(), kAuto).engine().mode, ScriptEngine::kFunctions);
    Client writer = role_client("shop", AclRole::kWriter);
    exercise(writer, "q2");
    EXPECT_EQ(writer.engine().mode, ScriptEngine::kFunctions);
    EXPECT_GT(command_calls(server(), "fcall"), 0);
    Client reader = role_client("dash", AclRole::kReader);
    EXPECT_EQ(reader.admin("q2").stats().totals.acked, 2U);
    EXPECT_EQ(reader.engine().mode, ScriptEngine::kFunctions);
    EXPECT_GT(command_calls(server(), "fcall_ro"), 0);
    // A reader's write is refused as before, and leaves it in function mode.
    EXPECT_THROW(reader.queue("q2").send("x"), PermissionError);
    EXPECT_EQ(reader.engine().mode, ScriptEngine::kFunctions);
}

TEST_F(FunctionLibraryTest, ForcedScriptsNeverTouchFunctions) {
    Client c(server().url(), {.engine = ScriptEngine::kScripts});
    exercise(c);
    EXPECT_EQ(c.engine().mode, ScriptEngine::kScripts);
    EXPECT_EQ(command_calls(server(), "fcall"), 0);
    EXPECT_EQ(command_calls(server(), "function|list"), 0);
    EXPECT_EQ(command_calls(server(), "function|load"), 0);
}

}  // namespace
}  // namespace delayq::test
