// HEAD (RFC 9110 9.3.2): every route that answers GET answers HEAD with the GET's status and
// header fields, Content-Length that of the body GET would send, and no body; a 405's Allow
// names HEAD wherever it names GET.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/support/service_fixture.hpp"

namespace delayq::test {
namespace {

class HttpHeadTest : public ServiceTest {
  protected:
    HttpResult head(const std::string& target, const std::string& token = {}) {
        return http().request({.method = "HEAD", .target = target, .token = token});
    }
};

TEST_F(HttpHeadTest, AGetRouteAnswersHeadWithTheGetsHeadAndNoBody) {
    start();
    ASSERT_EQ(http().post("/v1/queues/q/messages", {{"payload", "x"}, {"delay", "1h"}}).status,
              201u);
    // Answers whose body does not change from one request to the next, so that GET's length
    // is HEAD's Content-Length.
    const std::vector<std::string> targets = {
        "/v1/queues/q",     "/v1/queues", "/v1/queues/q/messages?state=scheduled",
        "/v1/openapi.yaml", "/healthz",   "/readyz"};
    for (const std::string& target : targets) {
        SCOPED_TRACE(target);
        const HttpResult get = http().get(target);
        ASSERT_EQ(get.status, 200u) << get.body;
        ASSERT_FALSE(get.body.empty());
        const HttpResult r = head(target);
        EXPECT_EQ(r.status, 200u);
        EXPECT_EQ(r.header("content-type"), get.header("content-type"));
        EXPECT_EQ(r.header("content-length"), std::to_string(get.body.size()));
        EXPECT_TRUE(r.body.empty());
        EXPECT_TRUE(r.keep_alive);
    }
    // No body bytes followed any of those heads: the next answer on the connection is whole.
    const HttpResult after = http().get("/healthz");
    EXPECT_EQ(after.status, 200u);
    EXPECT_EQ(after.json()["status"], "ok");
}

TEST_F(HttpHeadTest, MetricsAnswerHeadAndCountItUnderItsOwnMethod) {
    start();
    const HttpResult r = head("/metrics");
    EXPECT_EQ(r.status, 200u);
    EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_GT(std::stoul(r.header("content-length").value_or("0")), 0u);
    EXPECT_TRUE(r.body.empty());
    ASSERT_EQ(head("/healthz").status, 200u);
    const HttpResult metrics = http().get("/metrics");
    EXPECT_NE(
        metrics.body.find(
            R"(delayq_http_request_duration_seconds_count{method="HEAD",route="/healthz",status="200"} 1)"),
        std::string::npos)
        << metrics.body;
}

TEST_F(HttpHeadTest, RefusalsOfHeadHaveTheirHeadAndNoBody) {
    const std::string token = add_token("reader", "read", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });
    const HttpResult missing = head("/v2/nothing");
    EXPECT_EQ(missing.status, 404u);
    EXPECT_EQ(missing.header("content-type"), "application/problem+json");
    EXPECT_GT(std::stoul(missing.header("content-length").value_or("0")), 0u);
    EXPECT_TRUE(missing.body.empty());

    const HttpResult anonymous = head("/v1/queues/q");
    EXPECT_EQ(anonymous.status, 401u);
    EXPECT_EQ(anonymous.header("www-authenticate"), "Bearer");
    EXPECT_TRUE(anonymous.body.empty());

    // A path without GET has no HEAD either.
    const HttpResult post_only = head("/v1/queues/q/ack", token);
    EXPECT_EQ(post_only.status, 405u);
    EXPECT_EQ(post_only.header("allow"), "POST");
    EXPECT_TRUE(post_only.body.empty());

    EXPECT_EQ(head("/v1/queues/q", token).status, 200u);
    EXPECT_EQ(http().get("/v1/queues/q", token).status, 200u);
}

TEST_F(HttpHeadTest, AMethodNotAllowedNamesHeadWhereGetIs) {
    start();
    const HttpResult put = http().request({.method = "PUT", .target = "/v1/queues/q"});
    EXPECT_EQ(put.status, 405u);
    EXPECT_EQ(put.code(), "method_not_allowed");
    EXPECT_EQ(put.header("allow"), "GET, HEAD, PATCH, DELETE");
    const HttpResult options = http().request({.method = "OPTIONS", .target = "/metrics"});
    EXPECT_EQ(options.status, 405u);
    EXPECT_EQ(options.header("allow"), "GET, HEAD");
}

}  // namespace
}  // namespace delayq::test
