// delayq token new|list|revoke: the HTTP service's auth file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "support/read_file.hpp"
#include "support/widest_pattern.hpp"

namespace delayq::test {
namespace {

using TokenTest = CliTest;

class TokenFileTest : public TokenTest {
  protected:
    std::string auth() const { return (scratch_ / "auth").string(); }
    CliResult add(const std::string& name, const std::string& scopes, const std::string& queues) {
        return cli({"token", "new", "--name", name, "--scopes", scopes, "--queues", queues,
                    "--auth-file", auth()});
    }
};

TEST_F(TokenFileTest, NewPrintsTheTokenAloneAndStoresOnlyItsHashInAPrivateFile) {
    const CliResult r = add("shop", "send,consume", "orders*");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(count_lines(r.out), 1U) << r.out;
    const std::string token = r.out.substr(0, r.out.size() - 1);
    EXPECT_TRUE(token.starts_with("dqt_")) << token;
    struct stat st {};
    ASSERT_EQ(::stat(auth().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600U);
    const std::string file = read_file(auth());
    EXPECT_EQ(file.find(token), std::string::npos);
    EXPECT_EQ(file.rfind("shop ", 0), 0U) << file;
    EXPECT_NE(file.find(" send,consume orders*"), std::string::npos) << file;

    const CliResult second = add("ops", "admin", "*");
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.out, r.out);  // a fresh token each time
    EXPECT_EQ(count_lines(read_file(auth())), 2U);
}

TEST_F(TokenFileTest, ListShowsNamesScopesAndPatternsButNeverAWholeHash) {
    ASSERT_EQ(add("shop", "send", "orders*,billing").exit_code, 0);
    ASSERT_EQ(add("ops", "admin,read", "*").exit_code, 0);
    const std::string file = read_file(auth());
    std::vector<std::string> hashes;
    std::istringstream lines(file);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string name, hash;
        fields >> name >> hash;
        hashes.push_back(hash);
    }
    ASSERT_EQ(hashes.size(), 2U);

    const CliResult human = cli({"token", "list", "--auth-file", auth()});
    ASSERT_EQ(human.exit_code, 0) << human.err;
    EXPECT_NE(human.out.find("shop"), std::string::npos) << human.out;
    EXPECT_NE(human.out.find("orders*,billing"), std::string::npos) << human.out;
    EXPECT_NE(human.out.find("admin,read"), std::string::npos) << human.out;
    const CliResult json = cli({"token", "list", "--auth-file", auth(), "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto entries = json_lines(json.out);
    ASSERT_EQ(entries.size(), 2U);
    EXPECT_EQ(entries[0]["name"], "shop");
    EXPECT_EQ(entries[0]["scopes"], Json::parse(R"(["send"])"));
    EXPECT_EQ(entries[0]["queues"], Json::parse(R"(["orders*","billing"])"));
    EXPECT_EQ(entries[1]["queues"], Json::parse(R"(["*"])"));
    for (const auto& hash : hashes) {
        EXPECT_EQ(human.out.find(hash), std::string::npos);
        EXPECT_EQ(json.out.find(hash), std::string::npos);
        EXPECT_EQ(human.out.find(hash.substr(0, 16)), std::string::npos);
    }
}

TEST_F(TokenFileTest, RevokeRemovesTheEntryAndKeepsTheOthers) {
    ASSERT_EQ(add("shop", "send", "orders").exit_code, 0);
    ASSERT_EQ(add("ops", "admin", "*").exit_code, 0);
    const CliResult r = cli({"token", "revoke", "shop", "--auth-file", auth()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string file = read_file(auth());
    EXPECT_EQ(file.find("shop"), std::string::npos) << file;
    EXPECT_EQ(file.rfind("ops ", 0), 0U) << file;
    struct stat st {};
    ASSERT_EQ(::stat(auth().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600U);
    const CliResult again = cli({"token", "revoke", "shop", "--auth-file", auth()});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("no token named \"shop\""), std::string::npos) << again.err;
    EXPECT_EQ(read_file(auth()), file);
}

TEST_F(TokenFileTest, BadInputExitsTwoAndWritesNothing) {
    ASSERT_EQ(add("shop", "send", "orders").exit_code, 0);
    const std::string before = read_file(auth());
    const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
        {"x", "send,push", "q", "unknown scope \"push\""},
        {"x", "send", "a*b", "bad queue pattern \"a*b\""},
        {"shop", "send", "q", "exists already"},
        {"#x", "send", "q", "token name"},
    };
    for (const auto& [name, scopes, queues, text] : cases) {
        const CliResult r = add(name, scopes, queues);
        EXPECT_EQ(r.exit_code, 2) << name << " " << scopes << " " << queues;
        EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_EQ(read_file(auth()), before);
    const CliResult missing = cli({"token", "new", "--name", "x", "--scopes", "send"});
    EXPECT_EQ(missing.exit_code, 2);
}

TEST_F(TokenFileTest, PatternsComeBackFromTheFileAsGiven) {
    const std::string widest = widest_queue_pattern();
    const std::vector<std::string> patterns = {"orders", "billing-*", "*",
                                               "a\\*",   widest,      widest + "*"};
    std::string queues;
    for (const std::string& p : patterns) queues += (queues.empty() ? "" : ",") + p;
    const CliResult r = add("wide", "send,read", queues);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(read_file(auth()).find(" send,read " + queues + "\n"), std::string::npos);
    const CliResult list = cli({"token", "list", "--auth-file", auth(), "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const auto entries = json_lines(list.out);
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0]["scopes"], Json::parse(R"(["send","read"])"));
    EXPECT_EQ(entries[0]["queues"], Json(patterns));
}

TEST_F(TokenFileTest, APatternNoQueueNameHoldsExitsTwoAndLeavesTheFile) {
    ASSERT_EQ(add("shop", "send", "orders").exit_code, 0);
    const std::string before = read_file(auth());
    const std::vector<std::string> bad = {"{orders}", "or\001ders",  "a b",     "tab\t*",
                                          "q\x7f",    "caf\xc3\xa9", "or\rders"};
    for (const std::string& pattern : bad) {
        const CliResult r = add("x", "send", "q," + pattern);
        EXPECT_EQ(r.exit_code, 2) << pattern;
        EXPECT_NE(r.err.find("bad queue pattern \"" + pattern + "\""), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    EXPECT_EQ(read_file(auth()), before);
}

TEST_F(TokenFileTest, AFileWithABadPatternIsNeitherListedNorAddedTo) {
    ASSERT_EQ(add("shop", "send", "orders").exit_code, 0);
    {
        std::ofstream out(auth(), std::ios::app | std::ios::binary);
        out << "bad " << std::string(64, 'a') << " send q,{orders}\n";
    }
    const std::string before = read_file(auth());
    const CliResult list = cli({"token", "list", "--auth-file", auth()});
    EXPECT_EQ(list.exit_code, 2);
    EXPECT_NE(list.err.find("auth file line 2: bad queue pattern"), std::string::npos) << list.err;
    EXPECT_TRUE(list.out.empty()) << list.out;
    const CliResult more = add("more", "read", "q");
    EXPECT_EQ(more.exit_code, 2);
    EXPECT_NE(more.err.find("auth file line 2: bad queue pattern"), std::string::npos) << more.err;
    EXPECT_TRUE(more.out.empty()) << more.out;
    const CliResult revoke = cli({"token", "revoke", "shop", "--auth-file", auth()});
    EXPECT_EQ(revoke.exit_code, 2);
    EXPECT_NE(revoke.err.find("--auth-file: auth file line 2"), std::string::npos) << revoke.err;
    EXPECT_EQ(read_file(auth()), before);
}

}  // namespace
}  // namespace delayq::test
