// What the server answers to what it refuses: unknown routes, wrong methods, wrong media types,
// bodies too large, a full worker pool, too many connections, a Host that is not loopback.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <future>

#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpErrorsTest : public ServiceTest {};

TEST_F(HttpErrorsTest, UnknownPathIs404AndWrongMethodIs405WithAllow) {
    start();
    const HttpResult missing = http().get("/v2/nothing");
    EXPECT_EQ(missing.status, 404u);
    EXPECT_EQ(missing.code(), "not_found");
    EXPECT_EQ(missing.header("content-type"), "application/problem+json");
    const HttpResult wrong = http().request({.method = "PUT", .target = "/v1/queues/q/messages/m"});
    EXPECT_EQ(wrong.status, 405u);
    EXPECT_EQ(wrong.code(), "method_not_allowed");
    const auto allow = wrong.header("allow");
    ASSERT_TRUE(allow.has_value());
    EXPECT_NE(allow->find("GET"), std::string::npos);
    EXPECT_NE(allow->find("DELETE"), std::string::npos);
}

TEST_F(HttpErrorsTest, ABodyThatIsNotJsonIs415AndWritesNothing) {
    start();
    const HttpResult r = http().request({.method = "POST",
                                         .target = "/v1/queues/q/messages",
                                         .body = R"({"payload": "x"})",
                                         .content_type = "text/plain"});
    EXPECT_EQ(r.status, 415u);
    EXPECT_EQ(r.code(), "unsupported_media_type");
    const HttpResult none = http().request({.method = "POST",
                                            .target = "/v1/queues/q/messages",
                                            .body = R"({"payload": "x"})",
                                            .content_type = ""});
    EXPECT_EQ(none.status, 415u);
    EXPECT_EQ(redis().dbsize(), 0);
    // Parameters of the media type are fine.
    const HttpResult ok = http().request({.method = "POST",
                                          .target = "/v1/queues/q/messages",
                                          .body = R"({"payload": "x"})",
                                          .content_type = "application/json; charset=utf-8"});
    EXPECT_EQ(ok.status, 201u) << ok.body;
}

TEST_F(HttpErrorsTest, ABodyOverTheLimitIs413AndWritesNothing) {
    start([](auto& c) { c.limits.max_body_bytes = 1024; });
    const HttpResult r =
        http().post("/v1/queues/q/messages", {{"payload", std::string(2000, 'x')}});
    EXPECT_EQ(r.status, 413u);
    EXPECT_EQ(r.code(), "payload_too_large");
    EXPECT_FALSE(r.keep_alive);
    EXPECT_EQ(redis().dbsize(), 0);
    // A fresh connection is served as usual.
    HttpClient fresh(port());
    EXPECT_EQ(fresh.post("/v1/queues/q/messages", {{"payload", "small"}}).status, 201u);
}

TEST_F(HttpErrorsTest, AChunkedBodyOverTheLimitIs413) {
    start([](auto& c) { c.limits.max_body_bytes = 1024; });
    const std::string chunk(800, 'x');
    std::string raw =
        "POST /v1/queues/q/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        "application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 2; ++i) raw += "320\r\n" + chunk + "\r\n";
    raw += "0\r\n\r\n";
    http().send_raw(raw);
    EXPECT_EQ(http().read_answer().status, 413u);
    EXPECT_EQ(redis().dbsize(), 0);
}

TEST_F(HttpErrorsTest, MalformedHttpIs400AndTheConnectionCloses) {
    start();
    http().send_raw("GARBAGE\r\n\r\n");
    const HttpResult r = http().read_answer();
    EXPECT_EQ(r.status, 400u);
    EXPECT_TRUE(http().closed_by_server());
}

TEST_F(HttpErrorsTest, AFullWorkerPoolAnswers429) {
    start([](auto& c) {
        c.worker_threads = 1;
        c.worker_queue = 1;
        c.client.command_timeout = std::chrono::seconds(30);
    });
    EXPECT_EQ(http().get("/readyz").status, 200u);  // connects the pool before Redis stops
    // The worker that answered may not have counted itself idle yet.
    ASSERT_TRUE(eventually([&] { return service().pool().running() == 0; }));
    redis().freeze();
    // One request holds the only worker (its Redis call hangs), one waits in the queue. Batch
    // sends: they run on the pool, where single sends do not.
    auto held = std::async(std::launch::async, [this] {
        HttpClient c(port());
        return c.post("/v1/queues/q/messages/batch", one_message("a")).status;
    });
    ASSERT_TRUE(eventually([&] { return service().pool().running() == 1; }));
    auto queued = std::async(std::launch::async, [this] {
        HttpClient c(port());
        return c.post("/v1/queues/q/messages/batch", one_message("b")).status;
    });
    ASSERT_TRUE(eventually([&] { return service().pool().waiting() == 1; }));
    HttpClient third(port());
    const HttpResult r = third.post("/v1/queues/q/messages/batch", one_message("c"));
    EXPECT_EQ(r.status, 429u);
    EXPECT_EQ(r.code(), "rate_limited");
    EXPECT_EQ(r.header("retry-after"), "1");
    EXPECT_EQ(service().figures().worker_refused_pool_full, 1u);
    redis().thaw();
    EXPECT_EQ(held.get(), 201u);
    EXPECT_EQ(queued.get(), 201u);
    EXPECT_EQ(third.post("/v1/queues/q/messages/batch", one_message("c")).status, 201u);
}

TEST_F(HttpErrorsTest, ConnectionsBeyondTheCapAre503) {
    start([](auto& c) { c.limits.max_connections = 1; });
    EXPECT_EQ(http().get("/healthz").status, 200u);  // holds the one connection
    HttpClient second(port());
    const HttpResult r = second.get("/healthz");
    EXPECT_EQ(r.status, 503u);
    EXPECT_EQ(r.code(), "too_many_connections");
    EXPECT_TRUE(second.closed_by_server());
    EXPECT_EQ(service().figures().connections_refused, 1u);
    EXPECT_EQ(http().get("/healthz").status, 200u);
}

TEST_F(HttpErrorsTest, WithoutAuthOnlyLoopbackHostsAreAnswered) {
    start();
    for (const std::string host : {"evil.example", "evil.example:7380", "10.0.0.1", "[::2]:80"}) {
        const HttpResult r = http().request({.target = "/healthz", .host = host});
        EXPECT_EQ(r.status, 403u) << host;
        EXPECT_EQ(r.code(), "forbidden") << host;
    }
    const HttpResult send = http().request({.method = "POST",
                                            .target = "/v1/queues/q/messages",
                                            .body = R"({"payload": "x"})",
                                            .host = "rebind.example"});
    EXPECT_EQ(send.status, 403u);
    EXPECT_EQ(redis().dbsize(), 0);
    const std::string p = ":" + std::to_string(port());
    for (const std::string& host :
         std::vector<std::string>{"localhost", "localhost" + p, "127.0.0.1", "127.1.2.3" + p,
                                  "[::1]" + p, "app.localhost"}) {
        EXPECT_EQ(http().request({.target = "/healthz", .host = host}).status, 200u) << host;
    }
    // A loopback name with another port than the server's is not a request meant for it.
    const std::string other = ":" + std::to_string(port() == 9 ? 10 : 9);
    for (const std::string& host : {"localhost" + other, "[::1]" + other}) {
        const HttpResult r = http().request({.target = "/healthz", .host = host});
        EXPECT_EQ(r.status, 403u) << host;
    }
}

TEST_F(HttpErrorsTest, WithoutAuthANonLoopbackListenIsRefused) {
    try {
        start([](auto& c) { c.listen = {"0.0.0.0", 0}; });
        FAIL() << "listening on every address without an auth file was allowed";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("--auth-file"), std::string::npos) << e.what();
    }
}

TEST_F(HttpErrorsTest, KeepAliveServesManyRequestsOnOneConnection) {
    start();
    for (int i = 0; i < 20; ++i) {
        const HttpResult r = http().post("/v1/queues/q/messages", {{"payload", std::to_string(i)}});
        ASSERT_EQ(r.status, 201u);
        EXPECT_TRUE(r.keep_alive);
    }
    EXPECT_EQ(Client(redis().url()).admin("q").stats().ready, 20u);
}

TEST_F(HttpErrorsTest, AClientAskingToCloseGetsItsAnswerThenTheClose) {
    start();
    const HttpResult r =
        http().request({.target = "/healthz", .headers = {{"Connection", "close"}}});
    EXPECT_EQ(r.status, 200u);
    EXPECT_FALSE(r.keep_alive);
    EXPECT_TRUE(http().closed_by_server());
}

TEST_F(HttpErrorsTest, AnIdleConnectionIsClosedAfterTheIdleTimeout) {
    start([](auto& c) { c.limits.idle_timeout = std::chrono::milliseconds(200); });
    EXPECT_EQ(http().get("/healthz").status, 200u);
    EXPECT_TRUE(http().closed_by_server());  // blocks until the server gives up on it
}

TEST_F(HttpErrorsTest, ExpectContinueIsHonoured) {
    start();
    const HttpResult r = http().request({.method = "POST",
                                         .target = "/v1/queues/q/messages",
                                         .body = R"({"payload": "x"})",
                                         .headers = {{"Expect", "100-continue"}}});
    // The client sent the body at once; the server's interim 100 comes first, then the answer.
    EXPECT_TRUE(r.status == 100u || r.status == 201u) << r.status;
    if (r.status == 100u) {
        EXPECT_EQ(http().read_answer().status, 201u);
    }
}

}  // namespace
}  // namespace delayq::test
