// A queue's push target over real HTTP: set, read without its credentials, removed; bad bodies
// refused before Redis with the field named and nothing written; the `admin` scope.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <optional>
#include <string>
#include <vector>

#include "server/support/service_fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

constexpr const char* kTarget = "/v1/queues/q/push-target";
// Texts that must never come back: a header's value and a secret (24 bytes).
constexpr const char* kHeaderValue = "Bearer hdr-credential-4711";
constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

json sample_body() {
    return {{"url", "https://hooks.example.com/delayq?team=7"},
            {"method", "put"},
            {"content_type", "application/json"},
            {"headers", json::array({{{"name", "Authorization"}, {"value", kHeaderValue}},
                                     {{"name", "X-Team"}, {"value", "7"}}})},
            {"request_timeout_ms", 4000},
            {"max_in_flight", 7},
            {"rate", 2.5},
            {"secrets", json::array({kSecret})}};
}

class HttpPushTest : public ServiceTest {
  protected:
    void SetUp() override { start(); }
    Client client() { return Client(redis().url()); }

    HttpResult put(const json& body, const std::string& token = {},
                   const std::string& target = kTarget) {
        return http().request(
            {.method = "PUT", .target = target, .body = body.dump(), .token = token});
    }
    HttpResult put_text(const std::string& body) {
        return http().request({.method = "PUT", .target = kTarget, .body = body});
    }
    // What a pusher reads: the whole target, credentials included.
    std::optional<PushTarget> stored() {
        const auto read = client().push_targets("q").read_for_pusher();
        return read ? std::optional<PushTarget>(read->target) : std::nullopt;
    }
};

TEST_F(HttpPushTest, PutCreatesThenTheSameTargetIsUnchangedAndAChangeIsUpdated) {
    const HttpResult created = put(sample_body());
    ASSERT_EQ(created.status, 201u) << created.body;
    EXPECT_EQ(created.json(), json({{"status", "created"}}));

    const HttpResult unchanged = put(sample_body());
    ASSERT_EQ(unchanged.status, 200u) << unchanged.body;
    EXPECT_EQ(unchanged.json()["status"], "unchanged");

    json changed = sample_body();
    changed["max_in_flight"] = 8;
    const HttpResult updated = put(changed);
    ASSERT_EQ(updated.status, 200u) << updated.body;
    EXPECT_EQ(updated.json()["status"], "updated");

    // Every field of the body reached the library, the write-only ones included.
    PushTarget expected;
    expected.url = "https://hooks.example.com/delayq?team=7";
    expected.method = PushMethod::kPut;
    expected.content_type = "application/json";
    expected.headers = {{"Authorization", kHeaderValue}, {"X-Team", "7"}};
    expected.request_timeout = Duration(4000);
    expected.max_in_flight = 8;
    expected.rate = 2.5;
    expected.secrets = {kSecret};
    EXPECT_EQ(stored(), expected);
}

TEST_F(HttpPushTest, GetShowsTheTargetWithoutHeaderValuesOrSecrets) {
    ASSERT_EQ(put(sample_body()).status, 201u);
    const HttpResult got = http().get(kTarget);
    ASSERT_EQ(got.status, 200u) << got.body;
    const json target = got.json();
    EXPECT_EQ(target["queue"], "q");
    EXPECT_EQ(target["url"], "https://hooks.example.com/delayq?team=7");
    EXPECT_EQ(target["method"], "PUT");
    EXPECT_EQ(target["content_type"], "application/json");
    EXPECT_EQ(target["header_names"], json::array({"Authorization", "X-Team"}));
    EXPECT_EQ(target["request_timeout_ms"], 4000);
    EXPECT_EQ(target["max_in_flight"], 7);
    EXPECT_EQ(target["rate"], 2.5);
    EXPECT_EQ(target["secrets"], 1);
    EXPECT_GT(target["updated_ms"].get<std::int64_t>(), 0);
    EXPECT_TRUE(target["last"].is_null()) << got.body;
    EXPECT_EQ(got.body.find("hdr-credential"), std::string::npos) << got.body;
    EXPECT_EQ(got.body.find("MfKQ9r8G"), std::string::npos) << got.body;
}

TEST_F(HttpPushTest, AbsentFieldsTakeTheLibrarysDefaults) {
    ASSERT_EQ(put({{"url", "http://10.0.0.8:8080/hook"}}).status, 201u);
    PushTarget expected;
    expected.url = "http://10.0.0.8:8080/hook";
    EXPECT_EQ(stored(), expected);
    const json target = http().get(kTarget).json();
    EXPECT_EQ(target["method"], "POST");
    EXPECT_EQ(target["content_type"], "application/octet-stream");
    EXPECT_EQ(target["request_timeout_ms"], kDefaultPushRequestTimeout.count());
    EXPECT_EQ(target["max_in_flight"], kDefaultPushMaxInFlight);
    EXPECT_EQ(target["rate"], 0);
    EXPECT_EQ(target["header_names"], json::array());
    EXPECT_EQ(target["secrets"], 0);
}

TEST_F(HttpPushTest, DeleteIs204ThenNotFoundAndGetIs404WithoutATarget) {
    const HttpResult none = http().get(kTarget);
    EXPECT_EQ(none.status, 404u) << none.body;
    EXPECT_EQ(none.code(), "not_found");

    ASSERT_EQ(put(sample_body()).status, 201u);
    const HttpResult removed = http().del(kTarget);
    EXPECT_EQ(removed.status, 204u) << removed.body;
    EXPECT_TRUE(removed.body.empty()) << removed.body;
    EXPECT_FALSE(removed.header("content-length").has_value()) << "RFC 9110 8.6";
    EXPECT_FALSE(stored().has_value());

    const HttpResult again = http().del(kTarget);
    EXPECT_EQ(again.status, 404u) << again.body;
    EXPECT_EQ(again.code(), "not_found");
    EXPECT_EQ(http().get(kTarget).status, 404u);
    // The connection stays usable after the 204: nothing was left unread on it.
    EXPECT_EQ(http().get("/healthz").status, 200u);
}

// The longest headers the library takes are past a small body's limit: the route takes them.
TEST_F(HttpPushTest, TheLargestHeadersTheLibraryTakesFitTheBody) {
    json body = {{"url", "https://hooks.example.com/"}, {"headers", json::array()}};
    for (std::size_t i = 0; i < kMaxPushHeaders; ++i) {
        const std::string name = "X-H" + std::to_string(100 + i);
        body["headers"].push_back(
            {{"name", name}, {"value", std::string(kMaxPushHeaderBytes - name.size(), 'v')}});
    }
    ASSERT_GT(body.dump().size(), std::size_t{64} * 1024);
    const HttpResult r = put(body);
    EXPECT_EQ(r.status, 201u) << r.body.substr(0, 300);
    ASSERT_TRUE(stored().has_value());
    EXPECT_EQ(stored()->headers.size(), kMaxPushHeaders);
}

TEST_F(HttpPushTest, BadBodiesAre400NamingTheFieldAndChangeNothing) {
    ASSERT_EQ(put(sample_body()).status, 201u);
    const std::string before = http().get(kTarget).body;
    const std::optional<PushTarget> stored_before = stored();
    const auto with = [](const std::string& field, const json& value) {
        json body = sample_body();
        body[field] = value;
        return body.dump();
    };
    const auto without = [](const std::string& field) {
        json body = sample_body();
        body.erase(field);
        return body.dump();
    };
    // Each refused value carries this text where a credential would be, to show that no error
    // quotes it.
    const std::string leak = "leak-7391";
    // 12 characters, whole groups of four, so that the alphabet is what refuses them.
    const std::string bad_secret = "whsec_" + leak + "!!!";
    struct Case {
        std::string body;
        std::string field;
    };
    const std::vector<Case> cases = {
        {with("url", "ftp://hooks.example.com/"), "url"},
        {with("url", "http://169.254.169.254/latest"), "url"},
        {with("headers", json::array({{{"name", "Host"}, {"value", leak}}})), "Host"},
        {with("headers", json::array({{{"name", "X-A"}, {"value", leak + "\n"}}})), "header 1"},
        {with("headers", json::array({{{"name", "X-A"}}})), "headers[0]"},
        {with("headers", json::array({{{"name", "X-A"}, {"value", "v"}, {"secret", leak}}})),
         "headers[0]: unknown field"},
        {with("headers", json::array({{{"name", "X-A"}, {"value", 7}}})), "headers[0].value"},
        {with("headers", json::object({{"X-A", leak}})), "headers"},
        {with("request_timeout_ms", 999), "request_timeout_ms"},
        {with("request_timeout_ms", "10s"), "request_timeout_ms"},
        {with("max_in_flight", 0), "max_in_flight"},
        {with("max_in_flight", kMaxPushInFlight + 1), "max_in_flight"},
        {with("max_in_flight", "10"), "max_in_flight"},
        {with("rate", -1), "rate"},
        {with("rate", "fast"), "rate"},
        {with("method", "GET"), "method"},
        {with("secrets", json::array({bad_secret})), "secret 1"},
        {with("secrets", json::array({kSecret, "whsec_AAAA"})), "secret 2"},
        {with("secrets", bad_secret), "secrets"},
        {with("secrets", json::array({7})), "secrets[0]"},
        {with("colour", "red"), "colour"},
        {with("url", 7), "url"},
        {without("url"), "url"},
        {"{\"url\": \"https://hooks.example.com/\"", "JSON"},
        // The JSON parser's own errors quote the token they stopped at.
        {R"({"url": "https://hooks.example.com/", "secrets": ["whsec_)" + leak + "\x01\"]}",
         "JSON"},
        {R"({"url": "https://hooks.example.com/", "headers": [{"name": "X-A", "value": ")" + leak +
             R"(\q"}]})",
         "JSON"},
        {"[]", "object"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.body.substr(0, 200));
        const HttpResult r = put_text(c.body);
        EXPECT_EQ(r.status, 400u) << r.body;
        EXPECT_EQ(r.code(), "bad_request") << r.body;
        const std::string detail = r.json().value("detail", "");
        EXPECT_NE(detail.find(c.field), std::string::npos) << detail;
        EXPECT_EQ(r.body.find(leak), std::string::npos) << r.body;
        EXPECT_EQ(r.body.find("hdr-credential"), std::string::npos) << r.body;
        EXPECT_EQ(r.body.find("MfKQ9r8G"), std::string::npos) << r.body;
    }
    EXPECT_EQ(http().get(kTarget).body, before);
    EXPECT_EQ(stored(), stored_before);
}

TEST_F(HttpPushTest, ABadQueueNameIs400AndWritesNothing) {
    const auto before = key_dump();
    const HttpResult r = put(sample_body(), {}, "/v1/queues/a%7Bb%7D/push-target");
    EXPECT_EQ(r.status, 400u) << r.body;
    EXPECT_NE(r.json().value("detail", "").find("queue name"), std::string::npos) << r.body;
    EXPECT_EQ(key_dump(), before);
}

TEST_F(HttpPushTest, OnlyAnAdminTokenOfTheQueueReadsOrChangesTheTarget) {
    stop_service();
    const std::string reader = add_token("dash", "read", "*");
    const std::string deployer = add_token("deploy", "schedule,send,consume", "*");
    const std::string other_admin = add_token("ops-other", "admin", "other");
    const std::string admin = add_token("ops", "admin", "q");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });

    EXPECT_EQ(put(sample_body()).status, 401u) << "no token";
    for (const std::string& token : {reader, deployer, other_admin}) {
        const HttpResult refused = put(sample_body(), token);
        EXPECT_EQ(refused.status, 403u) << refused.body;
        EXPECT_EQ(refused.code(), "forbidden");
    }
    EXPECT_FALSE(stored().has_value());

    ASSERT_EQ(put(sample_body(), admin).status, 201u);
    for (const std::string& token : {reader, deployer, other_admin}) {
        EXPECT_EQ(http().get(kTarget, token).status, 403u);
        EXPECT_EQ(http().del(kTarget, token).status, 403u);
    }
    EXPECT_TRUE(stored().has_value());
    EXPECT_EQ(http().get(kTarget, admin).status, 200u);
    EXPECT_EQ(http().del(kTarget, admin).status, 204u);
    EXPECT_FALSE(stored().has_value());
}

}  // namespace
}  // namespace delayq::test
