// The operators' routes, the history and /metrics over real HTTP.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>

#include "promtool.hpp"
#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"
#include "support/push_receiver.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpAdminTest : public ServiceTest {
  protected:
    void SetUp() override { start(); }
    Client client() { return Client(redis().url()); }

    HttpResult patch(const std::string& target, const json& body, const std::string& token = {}) {
        return http().request(
            {.method = "PATCH", .target = target, .body = body.dump(), .token = token});
    }
    // Two dead letters, "d1" and "d2", in queue q.
    void make_dead_letters() {
        Queue q = client().queue("q");
        Leases leases = client().leases("q");
        q.send("x", {.id = "d1"});
        q.send("y", {.id = "d2"});
        for (const Delivery& d : leases.fetch(2, std::chrono::seconds(30)).deliveries) {
            leases.reject(d.lease(), {"bad"});
        }
        ASSERT_EQ(client().admin("q").stats().dead, 2u);
    }
};

TEST_F(HttpAdminTest, QueuesAndAQueueShowCountsTotalsAndSettings) {
    client().queue("a").send("m");
    client().queue("b").send("m", {.delay = std::chrono::hours(1)});
    const HttpResult list = http().get("/v1/queues");
    ASSERT_EQ(list.status, 200u) << list.body;
    EXPECT_EQ(list.json(),
              json::parse(R"({"queues":[)"
                          R"({"queue":"a","scheduled":0,"ready":1,"in_flight":0,"dead":0},)"
                          R"({"queue":"b","scheduled":1,"ready":0,"in_flight":0,"dead":0}]})"));
    const HttpResult one = http().get("/v1/queues/b");
    ASSERT_EQ(one.status, 200u) << one.body;
    EXPECT_EQ(one.json()["stats"]["scheduled"], 1);
    EXPECT_EQ(one.json()["totals"]["sent"], 1);
    EXPECT_EQ(one.json()["settings"]["max_attempts"], 25);
}

TEST_F(HttpAdminTest, MessagesArePagedWithACursor) {
    Queue q = client().queue("q");
    for (int i = 0; i < 3; ++i) q.send("m", {.id = "m" + std::to_string(i)});
    const HttpResult first = http().get("/v1/queues/q/messages?state=ready&limit=2");
    ASSERT_EQ(first.status, 200u) << first.body;
    ASSERT_EQ(first.json()["messages"].size(), 2u);
    const std::string cursor = first.json()["next_cursor"];
    std::string encoded;
    for (char c : cursor) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            encoded += c;
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            encoded += buf;
        }
    }
    const HttpResult second =
        http().get("/v1/queues/q/messages?state=ready&limit=2&cursor=" + encoded);
    ASSERT_EQ(second.status, 200u) << second.body;
    ASSERT_EQ(second.json()["messages"].size(), 1u);
    EXPECT_EQ(second.json()["messages"][0]["id"], "m2");
    EXPECT_TRUE(second.json()["next_cursor"].is_null());
    EXPECT_EQ(http().get("/v1/queues/q/messages").status, 400u);
    EXPECT_EQ(http().get("/v1/queues/q/messages?state=ready&order=desc").status, 400u);
}

TEST_F(HttpAdminTest, DeadLettersAreRequeuedAndPurged) {
    make_dead_letters();
    const HttpResult requeued = http().post("/v1/queues/q/dead/requeue", {{"ids", {"d1", "nope"}}});
    ASSERT_EQ(requeued.status, 200u) << requeued.body;
    EXPECT_EQ(requeued.json()["requeued"], 1);
    const HttpResult purged = http().post("/v1/queues/q/dead/purge", {{"all", true}});
    ASSERT_EQ(purged.status, 200u) << purged.body;
    EXPECT_EQ(purged.json()["purged"], 1);
    const QueueStats s = client().admin("q").stats();
    EXPECT_EQ(s.dead, 0u);
    EXPECT_EQ(s.ready, 1u);
}

TEST_F(HttpAdminTest, PatchChangesSettingsAndPausesAndResumes) {
    const HttpResult r = patch(
        "/v1/queues/q", {{"max_attempts", 3}, {"backoff", {{"initial", "5s"}}}, {"paused", true}});
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json()["settings"]["max_attempts"], 3);
    EXPECT_EQ(r.json()["settings"]["backoff"]["initial_ms"], 5000);
    EXPECT_EQ(r.json()["settings"]["paused"], true);
    EXPECT_TRUE(client().admin("q").settings().paused);
    ASSERT_EQ(patch("/v1/queues/q", {{"paused", false}}).status, 200u);
    EXPECT_FALSE(client().admin("q").settings().paused);
    EXPECT_EQ(client().admin("q").settings().max_attempts, 3);
}

TEST_F(HttpAdminTest, DeleteIsRefusedWhileLeasedUnlessForced) {
    client().queue("q").send("m");
    client().leases("q").fetch(1, std::chrono::seconds(30));
    const HttpResult refused = http().del("/v1/queues/q");
    EXPECT_EQ(refused.status, 409u) << refused.body;
    EXPECT_EQ(refused.code(), "conflict");
    EXPECT_EQ(client().admin("q").stats().in_flight, 1u);
    const HttpResult forced = http().del("/v1/queues/q?force=true");
    ASSERT_EQ(forced.status, 200u) << forced.body;
    EXPECT_EQ(forced.json()["status"], "deleted");
    EXPECT_TRUE(redis().keys("dq:{q}:*").empty());
}

TEST_F(HttpAdminTest, BadAdminInputIs400AndWritesNothing) {
    make_dead_letters();
    const auto before = key_dump();
    EXPECT_EQ(http().post("/v1/queues/q/dead/purge", {{"ids", {"d1"}}, {"all", true}}).status,
              400u);
    EXPECT_EQ(http().post("/v1/queues/q/dead/requeue", json::object()).status, 400u);
    EXPECT_EQ(patch("/v1/queues/q", {{"max_attempts", 3}, {"colour", "red"}}).status, 400u);
    EXPECT_EQ(patch("/v1/queues/q", {{"backoff", {{"multiplier", 0.5}}}}).status, 400u);
    EXPECT_EQ(http().del("/v1/queues/q?force=maybe").status, 400u);
    EXPECT_EQ(key_dump(), before);
}

TEST_F(HttpAdminTest, HistoryStartsAtTheFirstRequest) {
    client().queue("q").send("m");
    const HttpResult r = http().get("/v1/queues/q/history");
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json()["queue"], "q");
    ASSERT_GE(r.json()["points"].size(), 1u);
    EXPECT_EQ(r.json()["points"].back()["sent"], 1);
}

// The attack of issue 27: history requests for a thousand names that do not exist started a
// recorder each. Now such a name is answered empty and starts none, and beyond the cap an
// existing queue is answered with what exists, recording nothing.
TEST_F(HttpAdminTest, HistoryRecordsOnlyQueuesThatExistUpToTheCap) {
    stop_service();
    start([](server::service::ServiceConfig& c) { c.history.max_queues = 1; });
    const HttpResult ghost = http().get("/v1/queues/ghost/history");
    ASSERT_EQ(ghost.status, 200u) << ghost.body;
    EXPECT_EQ(ghost.json(), json({{"queue", "ghost"},
                                  {"recording", false},
                                  {"points", json::array()},
                                  {"periods", json::array()},
                                  {"hour", nullptr}}));
    EXPECT_EQ(service().history_recorder().watched(), 0u);
    EXPECT_EQ(redis().dbsize(), 0) << "a ghost writes nothing";

    client().queue("a").send("m");
    client().queue("b").send("m");
    const HttpResult a = http().get("/v1/queues/a/history");
    EXPECT_EQ(a.json()["recording"], true) << a.body;
    EXPECT_EQ(a.json()["points"].size(), 1u);
    const HttpResult b = http().get("/v1/queues/b/history");
    ASSERT_EQ(b.status, 200u) << b.body;
    EXPECT_EQ(b.json()["recording"], false) << b.body;
    EXPECT_TRUE(b.json()["points"].empty());
    EXPECT_EQ(service().history_recorder().watched(), 1u);
}

TEST_F(HttpAdminTest, MetricsPassPromtoolAndCountRequests) {
    client().queue("orders").send("m");
    ASSERT_EQ(http().get("/v1/queues/orders").status, 200u);
    const HttpResult r = http().get("/metrics");
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_TRUE(r.header("content-type").value_or("").starts_with("text/plain; version=0.0.4"));
    const auto [status, said] = promtool_check_metrics(r.body);
    EXPECT_EQ(status, 0) << said << "\n" << r.body;
    EXPECT_NE(r.body.find(R"(delayq_messages{queue="orders",state="ready"} 1)"), std::string::npos)
        << r.body;
    EXPECT_NE(
        r.body.find(
            R"(delayq_http_request_duration_seconds_count{method="GET",route="/v1/queues/{queue}",status="200"} 1)"),
        std::string::npos)
        << r.body;
}

TEST_F(HttpAdminTest, TheTimelineCountsWhatFallsDueByBucket) {
    Queue q = client().queue("t");
    q.send("now");
    q.send("soon", {.delay = std::chrono::seconds(90)});
    q.send("much later", {.delay = std::chrono::hours(5)});
    const HttpResult r = http().get("/v1/queues/t/timeline?bucket=1m&buckets=3");
    ASSERT_EQ(r.status, 200u) << r.body;
    const json t = r.json();
    EXPECT_EQ(t["queue"], "t");
    EXPECT_EQ(t["bucket_ms"], 60000);
    EXPECT_EQ(t["ready"], 1);
    EXPECT_EQ(t["later"], 1);
    ASSERT_EQ(t["buckets"].size(), 3u);
    EXPECT_EQ(t["buckets"][1]["count"], 1);
    EXPECT_EQ(t["buckets"][0]["from_ms"], t["now_ms"]);
    EXPECT_EQ(t["buckets"][2]["to_ms"].get<std::int64_t>(),
              t["now_ms"].get<std::int64_t>() + 3 * 60000);
    // Defaults: 60 buckets of a minute.
    EXPECT_EQ(http().get("/v1/queues/t/timeline").json()["buckets"].size(), 60u);
    for (const char* bad :
         {"?bucket=soon", "?buckets=0", "?buckets=1001", "?bucket=0s", "?other=1"}) {
        const HttpResult refused = http().get(std::string("/v1/queues/t/timeline") + bad);
        EXPECT_EQ(refused.status, 400u) << bad << ": " << refused.body;
    }
}

TEST_F(HttpAdminTest, TheRedisPanelShowsEachPrimaryAndTheEngine) {
    const HttpResult r = http().get("/v1/redis");
    ASSERT_EQ(r.status, 200u) << r.body;
    const json body = r.json();
    EXPECT_TRUE(body["engine"]["mode"] == "functions" || body["engine"]["mode"] == "scripts")
        << r.body;
    ASSERT_EQ(body["nodes"].size(), 1u);
    EXPECT_EQ(body["nodes"][0]["address"], "127.0.0.1:" + std::to_string(redis().port()));
    EXPECT_EQ(body["nodes"][0]["maxmemory_policy"], "noeviction");
    EXPECT_EQ(body["nodes"][0]["evicts"], false);
    EXPECT_GT(body["nodes"][0]["used_memory"].get<std::uint64_t>(), 0u);
}

// The dashboard's overview: one shared read of Redis a second, however many pages poll it.
TEST_F(HttpAdminTest, TheOverviewIsOneSharedReadASecond) {
    client().queue("a").send("m");
    client().queue("b").send("m", {.delay = std::chrono::hours(1)});
    const std::uint64_t before = service().overview_reads();
    const HttpResult first = http().get("/v1/overview");
    ASSERT_EQ(first.status, 200u) << first.body;
    const json o = first.json();
    EXPECT_EQ(o["truncated"], false);
    ASSERT_EQ(o["queues"].size(), 2u);
    EXPECT_EQ(o["queues"][0]["queue"], "a");
    EXPECT_EQ(o["queues"][0]["ready"], 1);
    EXPECT_EQ(o["queues"][0]["sent"], 1);
    EXPECT_TRUE(o["queues"][0]["oldest_ready_age_ms"].is_number());
    EXPECT_TRUE(o["queues"][1]["oldest_ready_age_ms"].is_null());
    // Asked again at once, by this page or fifty others: the same read answers.
    for (int i = 0; i < 5; ++i) EXPECT_EQ(http().get("/v1/overview").status, 200u);
    EXPECT_LE(service().overview_reads() - before, 2u) << "at most a read a second";
    // A new read comes within a second and shows what changed.
    client().queue("c").send("m");
    ASSERT_TRUE(
        eventually([&] { return http().get("/v1/overview").json()["queues"].size() == 3; }));
}

// The overview records the queues it shows, and gives each its figures from its history's
// oldest point within the hour to now.
TEST_F(HttpAdminTest, TheOverviewGivesEachQueueItsLastHour) {
    Queue q = client().queue("h");
    q.send("m");
    const json first = http().get("/v1/overview").json();
    ASSERT_EQ(first["queues"].size(), 1u);
    EXPECT_EQ(first["queues"][0]["recording"], true);
    ASSERT_EQ(client().admin("h").history(TimePoint{}).size(), 1u) << "recorded at once";
    for (int i = 0; i < 4; ++i) q.send("m");
    ASSERT_EQ(client().leases("h").fetch(2, std::chrono::seconds(30)).deliveries.size(), 2u);
    json hour;
    ASSERT_TRUE(eventually([&] {
        hour = http().get("/v1/overview").json()["queues"][0]["hour"];
        return hour.is_object() && hour["deliveries"] == 2;
    })) << hour;
    const double seconds = static_cast<double>(hour["to_ms"].get<std::int64_t>() -
                                               hour["from_ms"].get<std::int64_t>()) /
                           1000.0;
    EXPECT_NEAR(hour["sent_per_s"].get<double>() * seconds, 4.0, 1e-6) << hour;
    EXPECT_NEAR(hour["delivered_per_s"].get<double>() * seconds, 2.0, 1e-6) << hour;
    EXPECT_TRUE(hour["lateness_p50_le_ms"].is_number()) << hour;
}

// Without an auth file every request may do everything, and GET /v1/token says so.
TEST_F(HttpAdminTest, WithoutAnAuthFileTheTokenRouteGrantsEverything) {
    const HttpResult r = http().get("/v1/token");
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json(), json({{"auth", false},
                              {"name", nullptr},
                              {"scopes", {"send", "consume", "read", "schedule", "admin"}},
                              {"queues", {"*"}}}));
}

// The service runs a pusher: a message sent over HTTP to a queue with a target is pushed, and
// /metrics counts it.
TEST_F(HttpAdminTest, TheServicePushesAndItsMetricsPassPromtool) {
    PushReceiver receiver;
    PushTarget target;
    target.url = receiver.url();
    client().push_targets("hooks").set(target);
    ASSERT_EQ(http().post("/v1/queues/hooks/messages", {{"payload", "ring"}}).status, 201u);
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return !r.empty(); }, kEventDeadline));
    EXPECT_EQ(receiver.requests().front().body, "ring");
    const std::string acked = R"(delayq_push_requests_total{queue="hooks",outcome="acked"} 1)";
    std::string body;
    ASSERT_TRUE(eventually([&] {
        body = http().get("/metrics").body;
        return body.find(acked) != std::string::npos;
    })) << body;
    EXPECT_NE(body.find(R"(delayq_push_latency_seconds_count{queue="hooks"} 1)"), std::string::npos)
        << body;
    EXPECT_NE(body.find(R"(delayq_push_in_flight{queue="hooks"} 0)"), std::string::npos) << body;
    const auto [status, said] = promtool_check_metrics(body);
    EXPECT_EQ(status, 0) << said << "\n" << body;
}

TEST_F(HttpAdminTest, ALongPollsWaitIsCountedApartFromTheServicesTime) {
    // A poll of 300 ms on a queue with nothing due answers at the wait's end, so its wait is at
    // least that: it lands past the 0.25 s bucket of the wait histogram.
    const HttpResult poll = http().post("/v1/queues/q/leases", {{"wait", "300ms"}});
    ASSERT_EQ(poll.status, 200u) << poll.body;
    const std::string body = http().get("/metrics").body;
    const std::string wait =
        R"(delayq_http_long_poll_wait_seconds_bucket{route="/v1/queues/{queue}/leases",le=)";
    EXPECT_NE(body.find(wait + "\"0.25\"} 0\n"), std::string::npos) << body;
    EXPECT_NE(body.find(wait + "\"+Inf\"} 1\n"), std::string::npos) << body;
    EXPECT_NE(
        body.find(
            R"(delayq_http_request_duration_seconds_count{method="POST",route="/v1/queues/{queue}/leases",status="200"} 1)"),
        std::string::npos)
        << body;
    EXPECT_NE(body.find("delayq_redis_roundtrip_seconds "), std::string::npos) << body;
}

TEST_F(HttpAdminTest, AdminRoutesNeedTheirScopesAndMetricsNeedReadUnlessPublic) {
    stop_service();
    const std::string reader = add_token("dash", "read", "orders*");
    const std::string admin = add_token("ops", "admin", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });
    client().queue("orders").send("m");
    client().queue("billing").send("m");
    const HttpResult listed = http().get("/v1/queues", reader);
    ASSERT_EQ(listed.status, 200u) << listed.body;
    ASSERT_EQ(listed.json()["queues"].size(), 1u);  // only what the token covers
    EXPECT_EQ(listed.json()["queues"][0]["queue"], "orders");
    EXPECT_EQ(http().get("/v1/queues/billing", reader).status, 403u);
    EXPECT_EQ(patch("/v1/queues/orders", {{"paused", true}}, reader).status, 403u);
    EXPECT_EQ(patch("/v1/queues/orders", {{"paused", true}}, admin).status, 200u);
    EXPECT_EQ(http().get("/v1/queues/billing/history", admin).status, 200u);  // admin reads
    EXPECT_EQ(http().get("/metrics").status, 401u);
    // Issue 27: /metrics showed every queue to any read token. Now only those it covers.
    const HttpResult scoped = http().get("/metrics", reader);
    ASSERT_EQ(scoped.status, 200u);
    EXPECT_NE(scoped.body.find(R"(queue="orders")"), std::string::npos) << scoped.body;
    EXPECT_EQ(scoped.body.find(R"(queue="billing")"), std::string::npos) << scoped.body;
    EXPECT_NE(http().get("/metrics", admin).body.find(R"(queue="billing")"), std::string::npos);
    stop_service();
    start([this](server::service::ServiceConfig& c) {
        c.auth_file = auth_file();
        c.metrics_public = true;
    });
    const HttpResult open = http().get("/metrics");
    EXPECT_EQ(open.status, 200u);
    EXPECT_NE(open.body.find(R"(queue="billing")"), std::string::npos) << "public shows all";
}

}  // namespace
}  // namespace delayq::test
