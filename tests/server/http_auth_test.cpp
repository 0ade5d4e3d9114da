// Bearer tokens on every route: 401 without a known token, 403 without the scope or the queue,
// and the auth file re-read on demand (SIGHUP in `delayq serve`).
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <fstream>

#include "auth/token_file.hpp"
#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"
#include "support/push_receiver.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpAuthTest : public ServiceTest {
  protected:
    void SetUp() override {
        sender_ = add_token("producer", "send", "orders*");
        reader_ = add_token("reader", "read", "*");
        start([this](auto& c) { c.auth_file = auth_file(); });
    }
    HttpResult send(const std::string& queue, const std::string& token) {
        return http().post("/v1/queues/" + queue + "/messages", {{"payload", "x"}}, token);
    }
    std::string sender_;
    std::string reader_;
};

TEST_F(HttpAuthTest, NoTokenOrAnUnknownOneIs401AndTheTokenIsNeverEchoed) {
    const HttpResult none = send("orders", "");
    EXPECT_EQ(none.status, 401u);
    EXPECT_EQ(none.code(), "unauthorized");
    EXPECT_EQ(none.header("www-authenticate"), "Bearer");
    const std::string wrong = "dqt_" + std::string(64, 'a');
    const HttpResult unknown = send("orders", wrong);
    EXPECT_EQ(unknown.status, 401u);
    EXPECT_EQ(unknown.body.find(wrong), std::string::npos);
    EXPECT_EQ(unknown.body.find("aaaaaaaa"), std::string::npos);
    // A scheme other than Bearer is no token.
    const HttpResult basic = http().request({.target = "/v1/queues/orders/messages/m",
                                             .headers = {{"Authorization", "Basic " + sender_}}});
    EXPECT_EQ(basic.status, 401u);
    EXPECT_EQ(redis().dbsize(), 0);
}

TEST_F(HttpAuthTest, WrongScopeOrWrongQueueIs403AndWritesNothing) {
    const HttpResult scope = send("orders", reader_);
    EXPECT_EQ(scope.status, 403u);
    EXPECT_EQ(scope.code(), "forbidden");
    EXPECT_EQ(scope.body.find(reader_), std::string::npos);
    const HttpResult queue = send("billing", sender_);
    EXPECT_EQ(queue.status, 403u);
    EXPECT_EQ(queue.code(), "forbidden");
    EXPECT_EQ(redis().dbsize(), 0);
    // The sender may not read, even on its own queues.
    EXPECT_EQ(http().get("/v1/queues/orders/messages/m", sender_).status, 403u);
}

TEST_F(HttpAuthTest, TheRightTokenIsServed) {
    const HttpResult sent = send("orders-eu", sender_);
    ASSERT_EQ(sent.status, 201u) << sent.body;
    const std::string id = sent.json()["id"];
    EXPECT_EQ(http().get("/v1/queues/orders-eu/messages/" + id, reader_).status, 200u);
    EXPECT_EQ(http().del("/v1/queues/orders-eu/messages/" + id, sender_).status, 200u);
}

// GET /v1/token: any token may ask what it may do, whatever its scopes; the token itself and
// its hash are never in the answer.
// The pusher's figures on /metrics are per queue too: a token sees those of its queues only.
TEST_F(HttpAuthTest, MetricsShowATokenThePushesOfItsQueuesOnly) {
    PushReceiver receiver;
    Client c(redis().url());
    for (const char* queue : {"orders-1", "billing"}) {
        PushTarget target;
        target.url = receiver.url();
        c.push_targets(queue).set(target);
        c.queue(queue).send("x");
    }
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return r.size() >= 2; }, kEventDeadline));
    const std::string orders_reader = add_token("orders-reader", "read", "orders*");
    service().reload_auth();
    std::string all;
    ASSERT_TRUE(eventually([&] {
        all = http().get("/metrics", reader_).body;
        return all.find(R"(delayq_push_in_flight{queue="billing"})") != std::string::npos;
    })) << all;
    const std::string mine = http().get("/metrics", orders_reader).body;
    EXPECT_NE(mine.find(R"(delayq_push_in_flight{queue="orders-1"})"), std::string::npos) << mine;
    EXPECT_EQ(mine.find("billing"), std::string::npos) << mine;
}

// The overview is one read shared by every token, filtered by each token's patterns.
TEST_F(HttpAuthTest, TheOverviewShowsATokenOnlyItsQueues) {
    ASSERT_EQ(send("orders-1", sender_).status, 201u);
    ASSERT_EQ(send("billing", sender_).status, 403u);
    Client(redis().url()).queue("billing").send("x");
    const std::string orders_reader = add_token("orders-reader", "read", "orders*");
    service().reload_auth();
    const HttpResult mine = http().get("/v1/overview", orders_reader);
    ASSERT_EQ(mine.status, 200u) << mine.body;
    ASSERT_EQ(mine.json()["queues"].size(), 1u) << mine.body;
    EXPECT_EQ(mine.json()["queues"][0]["queue"], "orders-1");
    EXPECT_EQ(mine.body.find("billing"), std::string::npos);
    EXPECT_EQ(http().get("/v1/overview", reader_).json()["queues"].size(), 2u);
    EXPECT_EQ(http().get("/v1/overview", sender_).status, 403u) << "send alone does not read";
}

TEST_F(HttpAuthTest, ATokenSaysItsNameScopesAndQueues) {
    const HttpResult mine = http().get("/v1/token", sender_);
    ASSERT_EQ(mine.status, 200u) << mine.body;
    EXPECT_EQ(
        mine.json(),
        json(
            {{"auth", true}, {"name", "producer"}, {"scopes", {"send"}}, {"queues", {"orders*"}}}));
    EXPECT_EQ(mine.body.find(sender_), std::string::npos);
    const std::string admin = add_token("ops", "admin", "orders*,billing");
    service().reload_auth();
    const HttpResult ops = http().get("/v1/token", admin);
    ASSERT_EQ(ops.status, 200u) << ops.body;
    EXPECT_EQ(ops.json()["scopes"], json({"read", "schedule", "admin"}));
    EXPECT_EQ(ops.json()["queues"], json({"orders*", "billing"}));
    EXPECT_EQ(http().get("/v1/token").status, 401u);
    EXPECT_EQ(http().get("/v1/token", "dqt_" + std::string(64, 'b')).status, 401u);
}

TEST_F(HttpAuthTest, HealthRoutesNeedNoTokenAndAnyHostIsAnsweredWithAuth) {
    EXPECT_EQ(http().get("/healthz").status, 200u);
    EXPECT_EQ(http().get("/readyz").status, 200u);
    EXPECT_EQ(http().request({.target = "/healthz", .host = "delayq.internal:7380"}).status, 200u);
}

TEST_F(HttpAuthTest, ReloadTakesNewAndRevokedTokens) {
    const std::string later = add_token("later", "send", "*");
    EXPECT_EQ(send("any", later).status, 401u);  // not read yet
    ASSERT_TRUE(server::revoke_token(auth_file(), "producer"));
    service().reload_auth();
    EXPECT_EQ(send("any", later).status, 201u);
    EXPECT_EQ(send("orders", sender_).status, 401u);
}

TEST_F(HttpAuthTest, ABrokenFileOnReloadKeepsTheOldTokens) {
    {
        std::ofstream out(auth_file(), std::ios::app);
        out << "not an entry\n";
    }
    EXPECT_THROW(service().reload_auth(), server::AuthFileError);
    EXPECT_EQ(send("orders", sender_).status, 201u);
}

}  // namespace
}  // namespace delayq::test
