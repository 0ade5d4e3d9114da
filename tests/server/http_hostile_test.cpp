// Attacks on the HTTP service that once worked (issue 27), each reproduced on loopback and
// shown to fail now: bodies held before authentication, JSON that costs far more memory than its
// bytes, cross-site requests from a browser, request smuggling through Transfer-Encoding, and
// what a stopping server still took.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <delayq/delayq.hpp>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <thread>

#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

// A request's head as raw bytes, for what no well-behaved client sends.
std::string head(const std::string& request_line, const std::vector<std::string>& fields) {
    std::string out = request_line + "\r\n";
    for (const std::string& f : fields) out += f + "\r\n";
    return out + "\r\n";
}

class HttpHostileTest : public ServiceTest {};

std::size_t process_threads() {
    const std::filesystem::directory_iterator tasks("/proc/self/task");
    return static_cast<std::size_t>(std::distance(begin(tasks), end(tasks)));
}

// Each queue name sent to kept a sending thread (its cached Queue handle's own), up to the
// 1024 handles cached: now the names share the client's one.
TEST_F(HttpHostileTest, SingleSendsToManyQueueNamesCostNoThreadEach) {
    start();
    ASSERT_EQ(http().post("/v1/queues/warm-up/messages", {{"payload", "m"}}).status, 201u);
    const std::size_t threads = process_threads();
    for (int i = 0; i < 300; ++i) {
        const std::string target = "/v1/queues/q" + std::to_string(i) + "/messages";
        ASSERT_EQ(http().post(target, {{"payload", "m"}}).status, 201u);
    }
    EXPECT_EQ(process_threads(), threads);
}

TEST_F(HttpHostileTest, AnUnauthenticatedBodyIsRefusedOnItsHeadBeforeItIsSent) {
    add_token("producer", "send", "*");
    start([this](auto& c) { c.auth_file = auth_file(); });
    // Asking to send 15 MB first: the server answers 401 instead of `100 Continue`.
    http().send_raw(head("POST /v1/queues/q/messages/batch HTTP/1.1",
                         {"Host: 127.0.0.1", "Content-Type: application/json",
                          "Content-Length: 15000000", "Expect: 100-continue"}));
    const HttpResult asked = http().read_answer();
    EXPECT_EQ(asked.status, 401u);
    EXPECT_FALSE(asked.keep_alive);
    // Not asking: the head alone is answered, and the body is never waited for.
    HttpClient other(port());
    other.send_raw(
        head("POST /v1/queues/q/messages/batch HTTP/1.1",
             {"Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 15000000"}));
    EXPECT_EQ(other.read_answer().status, 401u);
    EXPECT_EQ(service().bodies().in_flight(), 0u);
    EXPECT_EQ(redis().dbsize(), 0);
}

TEST_F(HttpHostileTest, ABodyPastTheRoutesLimitIs413OnItsHead) {
    start();
    // A lease request takes a few fields: megabytes are refused before they are read.
    http().send_raw(head("POST /v1/queues/q/leases HTTP/1.1",
                         {"Host: 127.0.0.1", "Content-Type: application/json",
                          "Content-Length: 5000000", "Expect: 100-continue"}));
    EXPECT_EQ(http().read_answer().status, 413u);
    EXPECT_EQ(service().bodies().in_flight(), 0u);
}

// The budget of body bytes is as large as one lease request's body; a long-poll whose body
// fills it holds it until its answer.
class HttpBodyBudgetTest : public ServiceTest {
  protected:
    void start_small(std::chrono::milliseconds read_timeout) {
        start([&](auto& c) {
            c.limits.max_body_bytes = 64 * 1024;
            c.limits.max_body_bytes_in_flight = 64 * 1024;
            c.limits.read_timeout = read_timeout;
        });
    }
    // A long-poll whose body (JSON with spaces around it) takes most of the budget.
    void hold_budget(HttpClient& poll) {
        const std::string body = std::string(60'000, ' ') + R"({"wait": "30s"})";
        poll.send_raw(head("POST /v1/queues/q/leases HTTP/1.1",
                           {"Host: 127.0.0.1", "Content-Type: application/json",
                            "Content-Length: " + std::to_string(body.size())}) +
                      body);
        ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 1; }));
        EXPECT_EQ(service().bodies().in_flight(), body.size());
    }
    const std::string send_body_ = json{{"payload", std::string(10'000, 'x')}}.dump();
    const std::string send_head_ = head("POST /v1/queues/q/messages HTTP/1.1",
                                        {"Host: 127.0.0.1", "Content-Type: application/json",
                                         "Content-Length: " + std::to_string(send_body_.size())});
};

TEST_F(HttpBodyBudgetTest, ABodyThatDoesNotFitWaitsUntilAnotherIsAnswered) {
    start_small(std::chrono::seconds(30));
    HttpClient poll(port());
    hold_budget(poll);
    // B does not fit beside it: it waits, not told to send its body yet.
    HttpClient b(port());
    b.send_raw(
        head("POST /v1/queues/q/messages HTTP/1.1",
             {"Host: 127.0.0.1", "Content-Type: application/json",
              "Content-Length: " + std::to_string(send_body_.size()), "Expect: 100-continue"}));
    ASSERT_TRUE(eventually([&] { return service().bodies().waiting() == 1; }));
    // The poll's answer gives its bytes back, and B goes on.
    Client(redis().url()).queue("q").send("wake");
    EXPECT_EQ(poll.read_answer().json()["deliveries"].size(), 1u);
    EXPECT_EQ(b.read_answer().status, 100u);
    b.send_raw(send_body_);
    EXPECT_EQ(b.read_answer().status, 201u);
    EXPECT_EQ(service().bodies().in_flight(), 0u);
}

TEST_F(HttpBodyBudgetTest, ABodyThatWaitsPastTheReadTimeoutIs503AndClosed) {
    start_small(std::chrono::milliseconds(300));
    HttpClient poll(port());
    hold_budget(poll);
    HttpClient c(port());
    c.send_raw(send_head_);
    const HttpResult busy = c.read_answer();
    EXPECT_EQ(busy.status, 503u);
    EXPECT_EQ(busy.code(), "server_busy");
    EXPECT_EQ(busy.header("retry-after"), "1");
    EXPECT_FALSE(busy.keep_alive);
    EXPECT_EQ(service().bodies().waiting(), 0u);
    EXPECT_EQ(service().figures().bodies_timed_out, 1u);
    // A client gone gives its bytes back too.
    poll.close();
    ASSERT_TRUE(eventually([&] { return service().bodies().in_flight() == 0; }));
}

TEST_F(HttpHostileTest, JsonNestedTooDeepOrTooManyValuesOrARepeatedKeyIs400) {
    start();
    const auto send_raw_body = [&](const std::string& target, const std::string& body) {
        return http().request({.method = "POST", .target = target, .body = body});
    };
    const HttpResult deep = send_raw_body("/v1/queues/q/messages/batch", std::string(100'000, '['));
    EXPECT_EQ(deep.status, 400u);
    EXPECT_NE(deep.json()["detail"].get<std::string>().find("nests"), std::string::npos);
    std::string many = R"({"messages": [)";
    for (int i = 0; i < 40'000; ++i) many += "1,";
    many += "1]}";
    const HttpResult wide = send_raw_body("/v1/queues/q/messages/batch", many);
    EXPECT_EQ(wide.status, 400u);
    EXPECT_NE(wide.json()["detail"].get<std::string>().find("values"), std::string::npos);
    const HttpResult twice =
        send_raw_body("/v1/queues/q/messages", R"({"payload": "a", "payload": "b"})");
    EXPECT_EQ(twice.status, 400u);
    EXPECT_NE(twice.json()["detail"].get<std::string>().find("twice"), std::string::npos);
    EXPECT_EQ(redis().dbsize(), 0);
    // A single send too large to parse on the I/O thread is parsed on a worker, and sent.
    const HttpResult big =
        http().post("/v1/queues/q/messages", {{"payload", std::string(200'000, 'y')}});
    EXPECT_EQ(big.status, 201u);
}

TEST_F(HttpHostileTest, ABrowserPageOfAnotherOriginCannotLeaseOrSend) {
    start([](auto& c) { c.allowed_origins = {"https://dashboard.example"}; });
    Client client(redis().url());
    client.queue("q").send("keep");
    const std::string local = "http://127.0.0.1:" + std::to_string(port());
    // fetch(url, {method: 'POST', mode: 'no-cors'}) from a page elsewhere: no body, no type.
    const HttpResult cross = http().request({.method = "POST",
                                             .target = "/v1/queues/q/leases",
                                             .content_type = "",
                                             .headers = {{"Origin", "http://evil.example"}}});
    EXPECT_EQ(cross.status, 403u);
    const HttpResult null_origin = http().request(
        {.method = "POST", .target = "/v1/queues/q/leases", .headers = {{"Origin", "null"}}});
    EXPECT_EQ(null_origin.status, 403u);
    // A simple request of the same origin, or of none, still needs JSON's media type.
    const HttpResult untyped = http().request({.method = "POST",
                                               .target = "/v1/queues/q/leases",
                                               .content_type = "",
                                               .headers = {{"Origin", local}}});
    EXPECT_EQ(untyped.status, 415u);
    const HttpResult form = http().request({.method = "POST",
                                            .target = "/v1/queues/q/messages",
                                            .body = R"({"payload": "x"})",
                                            .content_type = "text/plain"});
    EXPECT_EQ(form.status, 415u);
    // Nothing was leased or sent.
    EXPECT_EQ(client.admin("q").stats().in_flight, 0u);
    EXPECT_EQ(client.admin("q").stats().ready, 1u);
    // The server's own origin and an allowed one are served.
    EXPECT_EQ(http()
                  .request({.method = "POST",
                            .target = "/v1/queues/q/messages",
                            .body = R"({"payload": "x"})",
                            .headers = {{"Origin", local}}})
                  .status,
              201u);
    EXPECT_EQ(http()
                  .request({.method = "GET",
                            .target = "/v1/queues/q",
                            .headers = {{"Origin", "https://dashboard.example"}}})
                  .status,
              200u);
}

TEST_F(HttpHostileTest, ATransferEncodingItCannotFrameIs400AndNothingRunsAfterIt) {
    start();
    for (const std::string coding : {"Transfer-Encoding: gzip", "Transfer-Encoding: identity",
                                     "Transfer-Encoding: chunked, identity",
                                     "Transfer-Encoding: chunked\r\nContent-Length: 5"}) {
        HttpClient c(port());
        // What follows the head would be taken for a second request if the first had no body.
        c.send_raw(
            head("POST /v1/queues/q/messages HTTP/1.1",
                 {"Host: 127.0.0.1", "Content-Type: application/json", coding}) +
            head("POST /v1/queues/q/messages HTTP/1.1",
                 {"Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 16"}) +
            R"({"payload":"x"})");
        const HttpResult r = c.read_answer();
        EXPECT_EQ(r.status, 400u) << coding;
        EXPECT_FALSE(r.keep_alive) << coding;
        EXPECT_TRUE(c.closed_by_server()) << coding;
    }
    EXPECT_EQ(redis().dbsize(), 0);
}

TEST_F(HttpHostileTest, Http10AndASecondHostHeaderAre400) {
    start();
    http().send_raw(head("GET /healthz HTTP/1.0", {"Host: 127.0.0.1"}));
    EXPECT_EQ(http().read_answer().status, 400u);
    HttpClient twice(port());
    twice.send_raw(head("GET /healthz HTTP/1.1", {"Host: 127.0.0.1", "Host: evil.example"}));
    EXPECT_EQ(twice.read_answer().status, 400u);
    HttpClient none(port());
    none.send_raw(head("GET /healthz HTTP/1.1", {}));
    EXPECT_EQ(none.read_answer().status, 400u);
}

TEST_F(HttpHostileTest, ARefusedHeadIsLoggedWithItsOwnMethodAndTarget) {
    start([](auto& c) { c.limits.max_header_bytes = 1024; });
    ASSERT_EQ(http().get("/healthz").status, 200u);
    std::ostringstream lines;
    const auto logger = spdlog::get("delayq.http");
    ASSERT_NE(logger, nullptr);
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines);
    logger->sinks().push_back(sink);
    // On the same kept-alive connection, a head too large to read.
    http().send_raw(head("GET /v1/queues/q HTTP/1.1",
                         {"Host: 127.0.0.1", "X-Filler: " + std::string(2000, 'f')}));
    EXPECT_EQ(http().read_answer().status, 413u);
    logger->sinks().pop_back();
    const std::string text = lines.str();
    EXPECT_NE(text.find(R"("method":"-")"), std::string::npos) << text;
    EXPECT_EQ(text.find("/healthz"), std::string::npos) << text;
}

TEST_F(HttpHostileTest, AStoppingServerClosesAfterEachAnswerAndTakesNoNewConnection) {
    start();
    // A kept-alive connection, idle, and a long-poll waiting.
    ASSERT_EQ(http().get("/healthz").status, 200u);
    HttpClient poll(port());
    poll.send_raw(
        head("POST /v1/queues/q/leases HTTP/1.1",
             {"Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 15"}) +
        R"({"wait": "30s"})");
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 1; }));
    std::thread stopper([&] { service().stop(); });
    const HttpResult answer = poll.read_answer();
    EXPECT_EQ(answer.status, 200u);
    EXPECT_EQ(answer.json()["deliveries"].size(), 0u);
    EXPECT_FALSE(answer.keep_alive);
    stopper.join();
    EXPECT_TRUE(http().closed_by_server());
    EXPECT_FALSE(can_connect(port()));
}

}  // namespace
}  // namespace delayq::test
