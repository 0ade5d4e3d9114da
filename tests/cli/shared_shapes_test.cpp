// What the command line shares with the HTTP service: one message by id (`delayq get`), the
// payload's base64 rules, the stats' field names and the limits of src/shared_constants.txt.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <delayq/limits.hpp>
#include <string>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using SharedShapesTest = CliTest;

TEST_F(SharedShapesTest, GetShowsOneMessageAsPeekDoes) {
    send("q", "hello", {"--id", "order-42", "--delay", "1h", "--max-attempts", "3"});
    const CliResult json = cli({"get", "q", "order-42", "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    ASSERT_EQ(count_lines(json.out), 1U) << json.out;
    const std::vector<Json> listed = peek("q", "scheduled");
    ASSERT_EQ(listed.size(), 1U);
    EXPECT_EQ(Json::parse(json.out), listed[0]);
    EXPECT_EQ(listed[0]["max_attempts"], 3);

    const CliResult people = cli({"get", "q", "order-42"});
    ASSERT_EQ(people.exit_code, 0) << people.err;
    EXPECT_NE(people.out.find("scheduled"), std::string::npos) << people.out;
    EXPECT_NE(people.out.find("hello"), std::string::npos) << people.out;
    EXPECT_NE(people.out.find("0 of 3"), std::string::npos) << people.out;
}

TEST_F(SharedShapesTest, GetOfAnUnknownOrBadIdFailsClearly) {
    const CliResult missing = cli({"get", "q", "nobody"});
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("no message nobody in queue q"), std::string::npos) << missing.err;
    EXPECT_EQ(missing.out, "");
    const CliResult bad = cli({"get", "q", "a{b}"});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_EQ(bad.out, "");
}

TEST_F(SharedShapesTest, GetShowsAPayloadThatIsNotUtf8AsBase64) {
    Client client(redis_.url());
    client.queue("q").send(std::string("\xff\x00\x01", 3), {.id = "bin"});
    const CliResult r = cli({"get", "q", "bin", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json m = Json::parse(r.out);
    EXPECT_EQ(m["payload_base64"], "/wAB");
    EXPECT_FALSE(m.contains("payload"));
    const CliResult people = cli({"get", "q", "bin"});
    EXPECT_NE(people.out.find("3 bytes, not UTF-8; base64: /wAB"), std::string::npos) << people.out;
}

TEST_F(SharedShapesTest, SendFileRefusesBase64ThatIsNotCanonical) {
    // The command line once decoded base64 by its own rules and took "YR==" (a, with stray
    // bits) where the service refuses it: one payload, one spelling, in both.
    CliOptions o;
    o.input = "{\"payload_base64\": \"YQ==\"}\n{\"payload_base64\": \"YR==\"}\n";
    const CliResult refused = cli({"send", "q", "--file", "-"}, o);
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("line 2: payload_base64 is not base64"), std::string::npos)
        << refused.err;
    EXPECT_EQ(redis_.dbsize(), 0);
    o.input = "{\"payload_base64\": \"YQ==\", \"id\": \"a\"}\n";
    ASSERT_EQ(cli({"send", "q", "--file", "-"}, o).exit_code, 0);
    const CliResult got = cli({"get", "q", "a", "--json"});
    EXPECT_EQ(Json::parse(got.out)["payload"], "a");
}

TEST_F(SharedShapesTest, StatsKeepTheFormerNameBesideTheServicesOne) {
    send("q", "ready now");
    const Json s = stats("q");
    ASSERT_TRUE(s.contains("oldest_ready_age_ms")) << s.dump();
    ASSERT_TRUE(s.contains("oldest_overdue_ms")) << s.dump();
    EXPECT_EQ(s["oldest_ready_age_ms"], s["oldest_overdue_ms"]);
}

TEST_F(SharedShapesTest, RangesComeFromTheSharedLimits) {
    const CliResult big = cli({"queue", "set", "q", "--dead-max-count", "4294967296"});
    ASSERT_EQ(big.exit_code, 0) << big.err;
    const CliResult info = cli({"queue", "info", "q", "--json"});
    EXPECT_EQ(Json::parse(info.out)["dead_max_count"], 4'294'967'296U);

    const std::string most = std::to_string(kMaxDeadCount);
    const CliResult over =
        cli({"queue", "set", "q", "--dead-max-count", std::to_string(kMaxDeadCount + 1)});
    EXPECT_EQ(over.exit_code, 2) << over.err;
    EXPECT_NE(over.err.find(most), std::string::npos) << over.err;

    // A range is stated in the limit's own digits, not a double's 309.
    for (const auto& args : {std::vector<std::string>{"send", "q", "x", "--max-attempts", "-1"},
                             {"queue", "set", "q", "--max-attempts", "-1"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(std::to_string(kMaxAttempts)), std::string::npos) << r.err;
        EXPECT_LT(r.err.size(), 300U) << r.err;
    }
    const CliResult help = cli({"queue", "set", "--help"});
    EXPECT_NE(help.out.find("(default " + std::to_string(kDefaultMaxAttempts) + ")"),
              std::string::npos)
        << help.out;
}

}  // namespace
}  // namespace delayq::test
