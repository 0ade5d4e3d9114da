// The send routes' "wait_replicas" and "wait_timeout": confirmed by a real replica (201), or not
// (503 not_replicated with the ids: the messages are stored, and sending them again with those
// ids is a duplicate); bad values are 400 and write nothing.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <memory>
#include <string>

#include "server/support/service_fixture.hpp"
#include "support/replicated_redis.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpDurableTest : public ServiceTest {
  protected:
    Client client() { return Client(redis().url()); }
};

TEST_F(HttpDurableTest, AReplicaConfirmsSingleAndBatchSends) {
    ReplicatedRedis pair;
    start([&](server::service::ServiceConfig& c) { c.redis_url = pair.primary().url(); });
    const HttpResult one =
        http().post("/v1/queues/q/messages",
                    {{"payload", "x"}, {"id", "a"}, {"wait_replicas", 1}, {"wait_timeout", "10s"}});
    ASSERT_EQ(one.status, 201u) << one.body;
    EXPECT_EQ(pair.replica().integer({"HEXISTS", queue_key("q", "msg"), "a"}), 1);

    const HttpResult batch =
        http().post("/v1/queues/q/messages/batch",
                    {{"messages", {{{"payload", "1"}, {"id", "b"}}, {{"payload", "2"}}}},
                     {"wait_replicas", 1},
                     {"wait_timeout", 10000}});
    ASSERT_EQ(batch.status, 201u) << batch.body;
    const json results = batch.json()["results"];
    ASSERT_EQ(results.size(), 2u);
    for (const auto& r : results) {
        EXPECT_EQ(pair.replica().integer({"HEXISTS", queue_key("q", "msg"), r["id"]}), 1) << r;
    }
    stop_service();  // before its Redis goes
}

TEST_F(HttpDurableTest, TooFewReplicasAnswers503NotReplicatedWithTheIds) {
    start();  // redis() has no replica
    const HttpResult r =
        http().post("/v1/queues/q/messages",
                    {{"payload", "x"}, {"wait_replicas", 1}, {"wait_timeout", "200ms"}});
    ASSERT_EQ(r.status, 503u) << r.body;
    EXPECT_EQ(r.json()["code"], "not_replicated");
    EXPECT_EQ(r.json()["replicas"], 1);
    EXPECT_EQ(r.json()["confirmed"], 0);
    ASSERT_EQ(r.json()["ids"].size(), 1u);
    const std::string id = r.json()["ids"][0];
    EXPECT_TRUE(client().admin("q").get(id).has_value());

    // Sent again with its id: a duplicate, still unconfirmed.
    const HttpResult again =
        http().post("/v1/queues/q/messages",
                    {{"payload", "x"}, {"id", id}, {"wait_replicas", 1}, {"wait_timeout", 200}});
    ASSERT_EQ(again.status, 503u) << again.body;
    EXPECT_EQ(again.json()["ids"], json::array({id}));

    const HttpResult batch =
        http().post("/v1/queues/q/messages/batch",
                    {{"messages", {{{"payload", "1"}, {"id", "b1"}}, {{"payload", "2"}}}},
                     {"wait_replicas", 1},
                     {"wait_timeout", "200ms"}});
    ASSERT_EQ(batch.status, 503u) << batch.body;
    EXPECT_EQ(batch.json()["code"], "not_replicated");
    ASSERT_EQ(batch.json()["ids"].size(), 2u);
    EXPECT_EQ(batch.json()["ids"][0], "b1");
    EXPECT_TRUE(client().admin("q").get(batch.json()["ids"][1].get<std::string>()).has_value());
    EXPECT_EQ(client().admin("q").stats().ready, 3u);

    // Without the fields, a plain send on the same queue is as before.
    EXPECT_EQ(http().post("/v1/queues/q/messages", {{"payload", "plain"}}).status, 201u);
}

TEST_F(HttpDurableTest, BadDurabilityIs400AndWritesNothing) {
    start();
    client().queue("q").send("present", {.delay = std::chrono::hours(1), .id = "keep"});
    const auto before = key_dump();
    const json bad[] = {
        {{"wait_replicas", 1}},
        {{"wait_replicas", 1}, {"wait_timeout", 0}},
        {{"wait_replicas", 1}, {"wait_timeout", "0s"}},
        {{"wait_replicas", -1}, {"wait_timeout", "1s"}},
        {{"wait_replicas", 1001}, {"wait_timeout", "1s"}},
        {{"wait_replicas", "one"}, {"wait_timeout", "1s"}},
        {{"wait_replicas", 1}, {"wait_timeout", "61s"}},
        {{"wait_replicas", 1}, {"wait_timeout", "soon"}},
        {{"wait_timeout", "1s"}},
    };
    for (const json& fields : bad) {
        json single = fields;
        single["payload"] = "x";
        const HttpResult r = http().post("/v1/queues/q/messages", single);
        EXPECT_EQ(r.status, 400u) << single << r.body;
        EXPECT_EQ(r.json()["code"], "bad_request") << r.body;
        json batch = fields;
        batch["messages"] = json::array({{{"payload", "x"}}});
        EXPECT_EQ(http().post("/v1/queues/q/messages/batch", batch).status, 400u) << batch;
    }
    // Durability is the request's, not a message's.
    const HttpResult inside = http().post(
        "/v1/queues/q/messages/batch",
        {{"messages", {{{"payload", "x"}, {"wait_replicas", 1}, {"wait_timeout", "1s"}}}}});
    EXPECT_EQ(inside.status, 400u) << inside.body;
    EXPECT_EQ(key_dump(), before);
}

}  // namespace
}  // namespace delayq::test
