// delayq send: payload from the argument or stdin, due times, duplicates, JSON lines in batches.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <fstream>
#include <map>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using SendTest = CliTest;

TEST_F(SendTest, PrintsTheIdOfTheStoredMessage) {
    const std::string id = send("orders", "close order 42", {"--delay", "1h"});
    ASSERT_FALSE(id.empty());
    const auto scheduled = peek("orders", "scheduled");
    ASSERT_EQ(scheduled.size(), 1U);
    EXPECT_EQ(scheduled[0]["id"], id);
    EXPECT_EQ(scheduled[0]["payload"], "close order 42");
    EXPECT_EQ(redis_.hlen(queue_key("orders", "msg")), 1);
}

TEST_F(SendTest, ReadsThePayloadFromStdinWhenNoneIsGiven) {
    CliOptions o;
    o.input = "line one\nline two\n";
    const CliResult r = cli({"send", "q", "--delay", "1h", "--id", "from-stdin"}, o);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "from-stdin\n");
    EXPECT_EQ(peek("q", "scheduled").at(0)["payload"], "line one\nline two\n");
}

// The queue as its users see it: records, due times and counters. (The sequence counter is left
// out: a send reserves a number before it finds the id taken.)
std::string visible_state(const RedisServer& redis, const std::string& queue) {
    std::string out;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"HGETALL", queue_key(queue, "msg")},
             {"ZRANGE", queue_key(queue, "pending"), "0", "-1", "WITHSCORES"},
             {"HGETALL", queue_key(queue, "stats")}}) {
        for (const auto& e : redis.command(args).elements) out += e.str + "|";
        out += "\n";
    }
    return out;
}

TEST_F(SendTest, ADuplicateIdPrintsTheIdSaysSoAndChangesNothing) {
    send("q", "first", {"--id", "order-7", "--delay", "1h"});
    const std::string before = visible_state(redis_, "q");
    const CliResult r = cli({"send", "q", "second", "--id", "order-7", "--delay", "2h"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "order-7\n");
    EXPECT_NE(r.err.find("duplicate"), std::string::npos) << r.err;
    EXPECT_EQ(visible_state(redis_, "q"), before);
    EXPECT_EQ(peek("q", "scheduled").at(0)["payload"], "first");
}

TEST_F(SendTest, AtTakesRfc3339AndUnixMilliseconds) {
    send("q", "a", {"--at", "2030-01-02T03:04:05Z", "--id", "utc"});
    send("q", "b", {"--at", "2030-01-02T03:04:05.250+02:00", "--id", "offset"});
    send("q", "c", {"--at", "1893553445001", "--id", "unix"});
    std::map<std::string, long long> due;
    for (const auto& m : peek("q", "scheduled")) due[m["id"]] = m["due_ms"];
    EXPECT_EQ(due["utc"], 1893553445000LL);
    EXPECT_EQ(due["offset"], 1893546245250LL);
    EXPECT_EQ(due["unix"], 1893553445001LL);
}

// The CLI once refused times after 2262-04-11 (a nanosecond system_clock's end); its limit is
// now the library's and the service's, the end of the year 9999.
TEST_F(SendTest, AtReachesTheYear9999AndRefusesTheYear10000) {
    send("q", "a", {"--at", "2600-01-01T00:00:00Z", "--id", "a"});
    send("q", "b", {"--delay", "1h", "--id", "b"});
    const CliResult moved = cli({"reschedule", "q", "b", "--at", "9999-12-31T23:59:59.999Z"});
    ASSERT_EQ(moved.exit_code, 0) << moved.err;
    std::map<std::string, long long> due;
    for (const auto& m : peek("q", "scheduled")) due[m["id"]] = m["due_ms"];
    EXPECT_EQ(due["a"], 19'880'899'200'000LL);
    EXPECT_EQ(due["b"], 253'402'300'799'999LL);

    const std::string before = visible_state(redis_, "q");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"send", "q", "c", "--at", "10000-01-01T00:00:00Z"},
          std::vector<std::string>{"reschedule", "q", "b", "--at", "10000-01-01T00:00:00Z"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << args[0];
        EXPECT_NE(r.err.find("after the year 9999"), std::string::npos) << r.err;
    }
    EXPECT_EQ(visible_state(redis_, "q"), before);
}

TEST_F(SendTest, DelaysAreMeasuredFromTheSend) {
    const long long before = redis_.time_ms();
    send("q", "a", {"--delay", "1h30m", "--id", "a"});
    send("q", "b", {"--delay", "7d", "--id", "b"});
    send("q", "c",
         {"--delay", "250ms", "--id", "c", "--max-attempts", "3", "--expire-after", "2h"});
    const long long after = redis_.time_ms();
    std::map<std::string, Json> m;
    for (const auto& s : {"scheduled", "ready"}) {
        for (const auto& j : peek("q", s)) m[j["id"]] = j;
    }
    ASSERT_EQ(m.size(), 3U);
    auto due = [&](const std::string& id) { return m[id]["due_ms"].get<long long>(); };
    EXPECT_GE(due("a"), before + 5'400'000);
    EXPECT_LE(due("a"), after + 5'400'000);
    EXPECT_GE(due("b"), before + 7 * 86'400'000LL);
    EXPECT_LE(due("b"), after + 7 * 86'400'000LL);
    EXPECT_GE(due("c"), before + 250);
    EXPECT_LE(due("c"), after + 250);
    EXPECT_EQ(m["c"]["max_attempts"], 3);
    EXPECT_GE(m["c"]["expire_at_ms"].get<long long>(), before + 7'200'000);
}

TEST_F(SendTest, FileSendsJsonLinesInBatchesOfAThousand) {
    std::string input;
    for (int i = 0; i < 2500; ++i) {
        input += "{\"payload\": \"message " + std::to_string(i) + "\", \"id\": \"m" +
                 std::to_string(i) + "\", \"delay\": \"1h\"}\n";
    }
    input += "\n{\"payload_base64\": \"AAEC/w==\", \"id\": \"bytes\", \"at\": 1893553445000}\n";
    input += "{\"payload\": \"again\", \"id\": \"m7\"}\n";  // a duplicate of line 8
    input += "{\"payload\": \"default delay\", \"id\": \"d\", \"max_attempts\": 2}\r\n";
    CliOptions o;
    o.input = input;
    const CliResult r = cli({"send", "q", "--file", "-", "--delay", "2h"}, o);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "sent 2503 messages in 3 batches: 2502 new, 1 duplicate\n");
    // Records of messages due more than an hour ahead are in the cold hash (docs/design.md).
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")) + redis_.hlen(queue_key("q", "cold")), 2502);
    EXPECT_EQ(redis_.hlen(queue_key("q", "cold")), 2);

    delayq::Client client(redis_.url());
    auto q = client.admin("q");
    auto bytes = q.get("bytes");
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(bytes->payload, std::string("\x00\x01\x02\xff", 4));
    EXPECT_EQ(bytes->due.time_since_epoch().count(), 1893553445000LL);
    EXPECT_EQ(q.get("m7")->payload, "message 7");
    auto d = q.get("d");
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->max_attempts, 2);
    // The command line's --delay is the default of lines without one: about 2h, not 1h.
    EXPECT_GT(d->due, q.get("m0")->due + std::chrono::minutes(30));
}

TEST_F(SendTest, FileFromDiskWithABadLineLaterOnSendsNothing) {
    std::string input;
    for (int i = 0; i < 1500; ++i) input += "{\"payload\": \"ok\"}\n";
    input += "{\"payload\": \"too late\", \"delay\": \"soon\"}\n";
    const auto path = scratch_ / "orders.jsonl";
    { std::ofstream(path) << input; }
    const CliResult r = cli({"send", "q", "--file", path.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("line 1501"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

// A file of good lines: the first 1,000 fill the first batch, so that a bad line after them
// would find that batch sent already if it were checked only when its own batch goes out.
std::string good_lines(int n) {
    std::string input;
    for (int i = 0; i < n; ++i) {
        input += "{\"payload\": \"ok " + std::to_string(i) + "\", \"id\": \"ok-" +
                 std::to_string(i) + "\"}\n";
    }
    return input;
}

TEST_F(SendTest, FileWithAGeneratedFormIdAfterAFullBatchSendsNothing) {
    // Ids of 14 lowercase hex digits are the generated ids' form, reserved by the library.
    CliOptions o;
    o.input = good_lines(1000) + "{\"payload\": \"x\", \"id\": \"0000000000abcd\"}\n";
    const CliResult r = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("line 1001: message id must not be 14 lowercase hex digits"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(SendTest, FileWithADueTimePastTheYear9999AfterAFullBatchSendsNothing) {
    // 2,932,000 days is a valid duration (it fits before the end of 9999 counted from 1970),
    // but from now it ends after 9999: only the server's clock tells.
    CliOptions o;
    o.input = good_lines(1500) + "{\"payload\": \"x\", \"delay\": \"2932000d\"}\n";
    const CliResult r = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("line 1501: due time would fall after the year 9999"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(SendTest, FileWithAnExpiryBeforeItsDueTimeSendsNothing) {
    CliOptions o;
    o.input = good_lines(1000) +
              "{\"payload\": \"x\", \"at\": \"2030-01-02T03:04:05Z\", \"expire_after\": \"1h\"}\n";
    const CliResult r = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("line 1001: expire_after ends before the due time"), std::string::npos)
        << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(SendTest, FileWithAKeyGivenTwiceSendsNothing) {
    // Which of two values would win differs between parsers: the line is refused, as the HTTP
    // service refuses such a body.
    CliOptions o;
    o.input = good_lines(3) + "{\"payload\": \"x\", \"delay\": \"1h\", \"delay\": \"0s\"}\n";
    const CliResult r = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("line 4: JSON has a key twice"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(SendTest, AnEmptyIdIsBadInputNotARequestForANewOne) {
    // Sending twice must not make two messages, as a generated id would on every retry.
    for (int attempt = 0; attempt < 2; ++attempt) {
        const CliResult r = cli({"send", "q", "x", "--id", ""});
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        EXPECT_NE(r.err.find("message id must not be empty"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    // `--id=` is an option without its value, which the parser refuses.
    const CliResult no_value = cli({"send", "q", "x", "--id="});
    EXPECT_EQ(no_value.exit_code, 2) << no_value.out << no_value.err;
    EXPECT_NE(no_value.err.find("--id"), std::string::npos) << no_value.err;
    CliOptions o;
    o.input = good_lines(3) + "{\"payload\": \"x\", \"id\": \"\"}\n";
    const CliResult file = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(file.exit_code, 2) << file.err;
    EXPECT_NE(file.err.find("line 4: message id must not be empty"), std::string::npos) << file.err;
    EXPECT_EQ(redis_.dbsize(), 0);
    // Without the option, an id is generated.
    EXPECT_FALSE(send("q", "x").empty());
}

TEST_F(SendTest, PayloadAtTheLimitIsAccepted) {
    CliOptions o;
    o.input = std::string(std::size_t{1024} * 1024, 'p');
    const CliResult r = cli({"send", "q", "--delay", "1h"}, o);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 1);
}

}  // namespace
}  // namespace delayq::test
