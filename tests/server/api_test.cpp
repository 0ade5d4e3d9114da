// The API's JSON shapes: payload encodings, message parsing, deliveries, problems.
#include <gtest/gtest.h>

#include "api/leases_json.hpp"
#include "api/problem.hpp"
#include "json/message.hpp"
#include "json/parse.hpp"
#include "json/payload.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;
using namespace delayq::server;
using namespace delayq::json;  // the shapes the CLI shares (common/json)

// The InvalidArgument text parse_message throws for a body, or "" when it parses.
std::string message_refusal(const json& body) {
    try {
        parse_message(body);
        return "";
    } catch (const InvalidArgument& e) {
        return e.what();
    }
}

TEST(PayloadTest, Utf8IsRecognisedExactly) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("plain ascii"));
    EXPECT_TRUE(is_valid_utf8("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_FALSE(is_valid_utf8("\xff"));
    EXPECT_FALSE(is_valid_utf8("\xc3"));              // cut short
    EXPECT_FALSE(is_valid_utf8("\xe2\x82"));          // cut short
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
    EXPECT_FALSE(is_valid_utf8(std::string("a\x80z")));
}

TEST(PayloadTest, Base64RoundTripsAndOnlyCanonicalTextDecodes) {
    for (const std::string& bytes : {std::string(), std::string("f"), std::string("fo"),
                                     std::string("foo"), std::string("\0\xff\x10", 3)}) {
        EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
    }
    EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
    EXPECT_FALSE(base64_decode("Zm9vYg="));   // not a multiple of 4
    EXPECT_FALSE(base64_decode("Zm9v!g=="));  // not the alphabet
    EXPECT_FALSE(base64_decode("Zm9vYh=="));  // non-zero padding bits: not canonical
}

TEST(MessageJsonTest, EveryFieldIsRead) {
    const Message m = parse_message(json::parse(
        R"({"payload":"hi","delay":"1h30m","id":"order-1","max_attempts":3,"expire_after":7200000})"));
    EXPECT_EQ(m.payload, "hi");
    EXPECT_EQ(m.options.delay, Duration(5'400'000));
    EXPECT_EQ(m.options.id, "order-1");
    EXPECT_EQ(m.options.max_attempts, 3);
    EXPECT_EQ(m.options.expire_after, Duration(7'200'000));
    const Message b =
        parse_message(json::parse(R"({"payload_base64":"AP8=","at":"2030-01-02T03:04:05Z"})"));
    EXPECT_EQ(b.payload, std::string("\0\xff", 2));
    ASSERT_TRUE(b.options.at);
    EXPECT_EQ(b.options.at->time_since_epoch().count(), 1893553445000);
    EXPECT_EQ(parse_message(json::parse(R"({"payload":"","delay":250})")).options.delay,
              Duration(250));
    EXPECT_EQ(parse_message(json::parse(R"({"payload":"x","at":1893553445000})")).options.at,
              TimePoint(Duration(1893553445000)));
}

TEST(MessageJsonTest, BadBodiesAreRefusedNamingWhatIsWrong) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"([1])", "JSON object"},
        {R"({})", "needs payload"},
        {R"({"payload":1})", "payload must be a string"},
        {R"({"payload":"a","payload_base64":"YQ=="})", "not both"},
        {R"({"payload_base64":"!!"})", "not base64"},
        {R"({"payload":"a","delay":"1d1d"})", "1d1d"},
        {R"({"payload":"a","delay":-5})", "delay must be"},
        {R"({"payload":"a","delay":1.5})", "delay must be"},
        {R"({"payload":"a","delay":"1s","at":"2030-01-01T00:00:00Z"})", "delay or at"},
        {R"({"payload":"a","at":"yesterday"})", "yesterday"},
        {R"({"payload":"a","id":7})", "id must be a string"},
        {R"({"payload":"a","max_attempts":-1})", "max_attempts"},
        {R"({"payload":"a","delay_ms":5})", "unknown field \"delay_ms\""},
    };
    for (const auto& [body, want] : cases) {
        const std::string said = message_refusal(json::parse(body));
        EXPECT_NE(said.find(want), std::string::npos) << body << " -> " << said;
    }
}

TEST(MessageJsonTest, ABatchNamesItsFirstBadMessage) {
    try {
        parse_batch(json::parse(R"({"messages":[{"payload":"a"},{"payload":"b"},{"x":1},{}]})"));
        ADD_FAILURE() << "accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_TRUE(std::string(e.what()).starts_with("messages[2]: ")) << e.what();
    }
    EXPECT_THROW(parse_batch(json::parse(R"({"messages":[]})")), InvalidArgument);
    EXPECT_THROW(parse_batch(json::parse(R"({"messages":[{"payload":"a"}],"x":1})")),
                 InvalidArgument);
    json big = {{"messages", json::array()}};
    for (int i = 0; i < 1001; ++i) big["messages"].push_back({{"payload", "p"}});
    EXPECT_THROW(parse_batch(big), InvalidArgument);
    big["messages"].erase(big["messages"].begin());
    EXPECT_EQ(parse_batch(big).size(), 1000u);
}

// The text of the InvalidArgument parse_json throws, or "" when the text parses.
std::string json_refusal(std::string_view text, const JsonBounds& bounds = {}) {
    try {
        parse_json(text, bounds);
        return "";
    } catch (const InvalidArgument& e) {
        return e.what();
    }
}

TEST(JsonParseTest, WithinItsBoundsItReadsWhatAPlainParseReads) {
    const std::string text =
        R"({"messages": [{"payload": "a\u00e9", "delay": "1s", "n": -3, "u": 18446744073709551615,)"
        R"( "f": 2.5e3, "t": true, "nil": null, "backoff": {"min": "1s"}}, [], {}],)"
        R"( "x": {"payload": "same key, other object"}})";
    EXPECT_EQ(parse_json(text), json::parse(text));
    EXPECT_EQ(parse_json("7"), json(7));
    EXPECT_EQ(parse_json(R"("s")"), json("s"));
    // Depth counts the containers: four levels fit, a fifth does not.
    EXPECT_EQ(json_refusal("[[[[1]]]]"), "");
    EXPECT_NE(json_refusal("[[[[[1]]]]]").find("nests deeper than 4"), std::string::npos);
    // Values, keys included: {"a": [1, 2]} is five.
    EXPECT_EQ(json_refusal(R"({"a": [1, 2]})", {.max_values = 5}), "");
    EXPECT_NE(json_refusal(R"({"a": [1, 2]})", {.max_values = 4}).find("more than 4 values"),
              std::string::npos);
}

TEST(JsonParseTest, WhatIsNotJsonOrHasAKeyTwiceIsRefused) {
    EXPECT_NE(json_refusal(R"({"a": 1, "b": {"c": 1, "c": 2}})").find("key twice"),
              std::string::npos);
    EXPECT_NE(json_refusal(R"([{"a": 1, "a": 1}])").find("key twice"), std::string::npos);
    for (const char* bad : {"", "{", "[1,]", R"({"a" 1})", "1 2", "1e999", "nul", "\"\\x\""}) {
        EXPECT_NE(json_refusal(bad).find("invalid JSON"), std::string::npos) << bad;
    }  // The refusal says where and why, never the text it stopped at: it may be part of a
    // payload or a credential, and refusals are answered and logged.
    for (const char* bad : {R"({"secret": "whsec_abc)",
                            R"({"h": "Bearer tok-1)"
                            "\x01\"}",
                            R"({"payload": tok-2})"}) {
        const std::string said = json_refusal(bad);
        EXPECT_NE(said.find("invalid JSON"), std::string::npos) << said;
        for (const char* quoted : {"whsec_abc", "tok-1", "tok-2", "last read"}) {
            EXPECT_EQ(said.find(quoted), std::string::npos) << said;
        }
    }
}

TEST(ProblemTest, LibraryErrorsMapToTheirStatus) {
    const auto of = [](auto e) { return problem_from(std::make_exception_ptr(e)); };
    EXPECT_EQ(of(InvalidArgument("bad id")).status, 400);
    EXPECT_EQ(of(InvalidArgument("bad id")).detail, "bad id");
    EXPECT_EQ(of(ConnectionError("refused")).status, 503);
    EXPECT_EQ(of(TimeoutError("slow")).code, "redis_unavailable");
    EXPECT_EQ(of(OutOfMemoryError("OOM")).status, 507);
    const Problem internal = of(std::runtime_error("secret at 0x1234"));
    EXPECT_EQ(internal.status, 500);
    EXPECT_EQ(internal.detail.find("secret"), std::string::npos);
    const json body = json::parse(not_found("no message \"m1\"").json());
    EXPECT_EQ(body["status"], 404);
    EXPECT_EQ(body["code"], "not_found");
    EXPECT_EQ(body["title"], "Not Found");
    EXPECT_EQ(body["detail"], "no message \"m1\"");
}

using DeliveryJsonTest = RedisTest;

// Real deliveries: text payloads as text, binary as base64, and the lease converts back.
TEST_F(DeliveryJsonTest, DeliveriesCarryEverythingAClientNeeds) {
    Queue q = queue();
    const SendResult sent = q.send("hello", {.id = "m1"});
    q.send(std::string("\0\xfe", 2), {.id = "m2"});
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 2u);
    const server::auth::LeaseSeal seal(std::string(32, 'k'));
    const json delivered = json::parse(deliveries_text(f.deliveries, seal))["deliveries"];
    const json& a = delivered[0];
    EXPECT_EQ(a["id"], "m1");
    EXPECT_EQ(a["payload"], "hello");
    EXPECT_FALSE(a.contains("payload_base64"));
    EXPECT_EQ(a["attempt"], 1);
    EXPECT_EQ(a["due_ms"], ms(sent.due));
    EXPECT_EQ(a["delivered_ms"], ms(f.deliveries[0].delivered_at()));
    EXPECT_EQ(a["last_error"], "");
    const auto opened = seal.open("q", a["lease"].get<std::string>());
    ASSERT_TRUE(opened && opened->authentic) << a["lease"];
    EXPECT_EQ(opened->lease, f.deliveries[0].lease());
    const json& b = delivered[1];
    EXPECT_EQ(b["payload_base64"], "AP4=");
    EXPECT_FALSE(b.contains("payload"));
    const json r = json::parse(send_result_text(sent));
    EXPECT_EQ(r["id"], "m1");
    EXPECT_EQ(r["duplicate"], false);
    EXPECT_EQ(r["due_ms"], ms(sent.due));
    SendResult odd = sent;
    odd.id = "a\"b\n\xff";
    odd.duplicate = true;
    const json both = json::parse(send_results_text({sent, odd}));
    ASSERT_EQ(both.size(), 1u);
    ASSERT_EQ(both["results"].size(), 2u);
    EXPECT_EQ(both["results"][0], r);
    EXPECT_EQ(both["results"][1]["id"], "a\"b\n\xef\xbf\xbd");
    EXPECT_EQ(both["results"][1]["duplicate"], true);
    EXPECT_EQ(json::parse(send_results_text({})), json::parse(R"({"results":[]})"));
}

}  // namespace
}  // namespace delayq::test
