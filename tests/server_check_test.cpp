// The checks a client makes of the server it meets: an evicting maxmemory-policy (warned about,
// or refused in strict mode), and a full Redis that refuses sends but still drains.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "support/acl.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"

namespace delayq::test {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

using ConnectionTest = RedisTest;

class EvictingServerTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override {
        return {.extra_args = {"--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"}};
    }
};

TEST_F(EvictingServerTest, WarnsButWorksByDefault) {
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    Client c(server().url());
    std::string error;
    try {
        c.ping();
        c.queue("q").send("x");
    } catch (const std::exception& e) {
        error = e.what();
    }
    const std::string out =
        lower(testing::internal::GetCapturedStdout() + testing::internal::GetCapturedStderr());
    EXPECT_EQ(error, "");
    EXPECT_NE(out.find("allkeys-lru"), std::string::npos) << "logged: " << out;
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

// What an operator's panel shows: the node's own figures, and whether its policy can evict.
TEST_F(EvictingServerTest, RedisInfoSaysItEvicts) {
    const std::vector<RedisNodeInfo> nodes = client().redis_info();
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].address, "127.0.0.1:" + std::to_string(server().port()));
    EXPECT_EQ(nodes[0].maxmemory, 100u * 1024 * 1024);
    EXPECT_EQ(nodes[0].maxmemory_policy, "allkeys-lru");
    EXPECT_TRUE(nodes[0].evicts);
    EXPECT_GT(nodes[0].used_memory, 0u);
    EXPECT_GE(nodes[0].connected_clients, 1u);
    EXPECT_NE(server().command({"INFO", "server"}).str.find("redis_version:" + nodes[0].version),
              std::string::npos);
}

TEST_F(ConnectionTest, RedisInfoOfANonEvictingServer) {
    const std::vector<RedisNodeInfo> nodes = client().redis_info();
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].maxmemory, 0u);
    EXPECT_EQ(nodes[0].maxmemory_policy, "noeviction");
    EXPECT_FALSE(nodes[0].evicts);
    EXPECT_FALSE(nodes[0].version.empty());
}

TEST_F(EvictingServerTest, StrictClientRefusesIt) {
    Client c(server().url(), ClientOptions{.refuse_evicting_server = true});
    EXPECT_THROW(c.ping(), ConfigurationError);
    Queue q = c.queue("q");
    EXPECT_THROW(q.send("x"), ConfigurationError);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(EvictingServerTest, StrictClientRefusesWhenItCannotReadThePolicy) {
    // A user who may use queues but not run admin commands (INFO, CONFIG): the strict client
    // cannot verify the policy, so it must not assume it is safe.
    ASSERT_FALSE(add_acl_user(server(), "app", "pw", {"-@dangerous"}).is_error());
    const std::string url = "redis://app:pw@127.0.0.1:" + std::to_string(server().port());
    Client lenient(url);
    EXPECT_NO_THROW(lenient.queue("q").send("x"));
    Client strict(url, ClientOptions{.refuse_evicting_server = true});
    EXPECT_THROW(strict.ping(), ConfigurationError);
    EXPECT_THROW(strict.queue("q").send("y"), ConfigurationError);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
}

TEST_F(EvictingServerTest, StrictConsumerStopsWithAConfigurationError) {
    Client c(server().url(), ClientOptions{.refuse_evicting_server = true});
    Consumer consumer(c.leases("q"), ack_all);
    Latch done;
    std::string outcome = "none";
    std::thread runner([&] {
        try {
            consumer.run();
            outcome = "returned";
        } catch (const ConfigurationError&) {
            outcome = "ConfigurationError";
        } catch (const std::exception& e) {
            outcome = std::string("other: ") + e.what();
        }
        done.open();
    });
    const bool finished = done.wait(20s);
    if (!finished) consumer.stop();
    runner.join();
    EXPECT_TRUE(finished) << "run() kept running on an evicting server";
    EXPECT_EQ(outcome, "ConfigurationError");
}

TEST_F(ConnectionTest, StrictClientAcceptsNoeviction) {
    Client c(server().url(), ClientOptions{.refuse_evicting_server = true});
    EXPECT_NO_THROW(c.ping());
    EXPECT_NO_THROW(c.queue("q").send("x"));
}

TEST_F(ConnectionTest, FullRedisRefusesSendsWholeButStillDrains) {
    Queue q = queue();
    const long long limit = server().info_integer("memory", "used_memory") + 2 * 1024 * 1024;
    ASSERT_FALSE(
        server().command({"CONFIG", "SET", "maxmemory", std::to_string(limit)}).is_error());
    // Fill with ever smaller payloads: a big send's own query buffer counts towards maxmemory,
    // so its refusal alone does not mean that a small one is refused too.
    long long stored = 0;
    bool refused = false;
    for (std::size_t size : {64 * 1024, 1024, 16}) {
        const std::string payload(size, 'p');
        refused = false;
        for (int i = 0; i < 5000 && !refused; ++i) {
            try {
                q.send(payload);
                ++stored;
            } catch (const OutOfMemoryError&) {
                refused = true;
            }
        }
    }
    ASSERT_TRUE(refused);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), stored);
    std::vector<Message> batch(3, Message{"small", {}});
    EXPECT_THROW(q.send_batch(batch), OutOfMemoryError);
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), stored);

    // Fetch, ack and inspection must still work, or a full Redis could never drain.
    long long acked = 0;
    for (int round = 0; round < 100 && acked < stored; ++round) {
        for (const auto& d : leases(q).fetch(100, 30s).deliveries) {
            ASSERT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
            ++acked;
        }
    }
    EXPECT_EQ(acked, stored);
    EXPECT_EQ(admin(q).stats().ready, 0u);
}

}  // namespace
}  // namespace delayq::test
