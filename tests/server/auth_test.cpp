// The service's tokens: the auth file's grammar, scopes, queue patterns and the file's updates.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <delayq/validate.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "auth/token_file.hpp"
#include "support/widest_pattern.hpp"

namespace delayq::server {
namespace {

std::string entry_line(const std::string& name, const std::string& token, const std::string& scopes,
                       const std::string& queues) {
    return name + " " + token_sha256_hex(token) + " " + scopes + " " + queues + "\n";
}

TEST(QueuePatternTest, ExactPrefixAllAndEscapedStars) {
    auto exact = QueuePattern::parse("orders");
    ASSERT_TRUE(exact);
    EXPECT_TRUE(exact->matches("orders"));
    EXPECT_FALSE(exact->matches("orders2"));
    EXPECT_FALSE(exact->matches("order"));

    auto prefix = QueuePattern::parse("billing-*");
    ASSERT_TRUE(prefix);
    EXPECT_TRUE(prefix->matches("billing-"));
    EXPECT_TRUE(prefix->matches("billing-eu"));
    EXPECT_FALSE(prefix->matches("billing"));

    auto all = QueuePattern::parse("*");
    ASSERT_TRUE(all);
    EXPECT_TRUE(all->matches("anything"));
    EXPECT_TRUE(all->matches(""));

    auto star = QueuePattern::parse("a\\*");  // the queue named `a*`, only
    ASSERT_TRUE(star);
    EXPECT_TRUE(star->matches("a*"));
    EXPECT_FALSE(star->matches("ab"));
    auto star_prefix = QueuePattern::parse("a\\**");  // names starting with `a*`
    ASSERT_TRUE(star_prefix);
    EXPECT_TRUE(star_prefix->matches("a*b"));
    EXPECT_FALSE(star_prefix->matches("ab"));
    auto backslash = QueuePattern::parse("a\\\\b");
    ASSERT_TRUE(backslash);
    EXPECT_TRUE(backslash->matches("a\\b"));
}

TEST(QueuePatternTest, MalformedPatternsAreRefused) {
    for (const char* bad : {"", "a*b", "**", "a\\", "a\\b", "*a"}) {
        EXPECT_FALSE(QueuePattern::parse(bad)) << bad;
    }
}

TEST(TokenTableTest, ScopesAndQueuesDecide) {
    const TokenTable t = TokenTable::parse(
        "# producers and operators\n"
        "\n" +
        entry_line("producer", "tok-p", "send", "orders,billing-*") +
        entry_line("ops", "tok-o", "admin", "*") +
        entry_line("worker", "tok-w", "consume,read", "orders"));
    ASSERT_EQ(t.entries().size(), 3u);
    EXPECT_EQ(t.authorize("tok-p", Scope::kSend, "orders"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize("tok-p", Scope::kSend, "billing-eu"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize("tok-p", Scope::kSend, "payments"), AuthDecision::kForbidden);
    EXPECT_EQ(t.authorize("tok-p", Scope::kConsume, "orders"), AuthDecision::kForbidden);
    EXPECT_EQ(t.authorize("tok-p", Scope::kRead, "orders"), AuthDecision::kForbidden);
    // admin implies read, and nothing else.
    EXPECT_EQ(t.authorize("tok-o", Scope::kRead, "x"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize("tok-o", Scope::kAdmin, "x"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize("tok-o", Scope::kSend, "x"), AuthDecision::kForbidden);
    EXPECT_EQ(t.authorize("tok-w", Scope::kRead, "orders"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize("tok-w", Scope::kAdmin, "orders"), AuthDecision::kForbidden);
    // Unknown or missing tokens.
    EXPECT_EQ(t.authorize("tok-x", Scope::kSend, "orders"), AuthDecision::kUnauthorized);
    EXPECT_EQ(t.authorize("", Scope::kSend, "orders"), AuthDecision::kUnauthorized);
    EXPECT_EQ(t.authorize_any("tok-w", Scope::kRead), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize_any("tok-p", Scope::kRead), AuthDecision::kForbidden);
    EXPECT_EQ(t.authorize_any("nope", Scope::kRead), AuthDecision::kUnauthorized);
    ASSERT_NE(t.find("tok-w"), nullptr);
    EXPECT_EQ(t.find("tok-w")->name, "worker");
}

TEST(TokenTableTest, BadLinesNameTheirNumberAndNeverTheirText) {
    const std::string hash = token_sha256_hex("t");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a " + hash + " send\n", "line 1"},
        {"\n\na " + hash + " send,fly orders\n", "line 3: unknown scope"},
        {"a " + hash.substr(1) + " send orders\n", "line 1: the hash"},
        {"a " + std::string(64, 'G') + " send orders\n", "line 1: the hash"},
        {"a " + hash + " send a*b\n", "line 1: bad queue pattern"},
        {"a " + hash + " send q\na " + hash + " read q\n", "line 2: the name is used"},
    };
    for (const auto& [text, want] : cases) {
        try {
            TokenTable::parse(text);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const AuthFileError& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find(hash.substr(0, 16)), std::string::npos);
        }
    }
}

TEST(TokenTableTest, FreshTokensAreLongRandomAndPrefixed) {
    const std::string a = new_token(), b = new_token();
    EXPECT_NE(a, b);
    EXPECT_TRUE(a.starts_with("dqt_"));
    EXPECT_EQ(a.size(), 4u + 64u);
    EXPECT_EQ(token_sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

class TokenFileTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("delayq-auth-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(dir_);
        path_ = dir_ / "auth";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string text() const {
        std::ifstream in(path_);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    std::filesystem::path dir_, path_;
};

TEST_F(TokenFileTest, AddedTokensWorkAndTheFileIsPrivate) {
    const std::string t1 =
        add_token(path_, "producer", {Scope::kSend}, {*QueuePattern::parse("orders*")});
    const std::string t2 = add_token(path_, "ops", {Scope::kAdmin}, {*QueuePattern::parse("*")});
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    // Only hashes are stored.
    EXPECT_EQ(text().find(t1), std::string::npos);
    const TokenTable t = load_token_file(path_);
    EXPECT_EQ(t.authorize(t1, Scope::kSend, "orders-eu"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize(t2, Scope::kRead, "orders"), AuthDecision::kAllowed);
    EXPECT_EQ(t.authorize(t1, Scope::kAdmin, "orders"), AuthDecision::kForbidden);
}

TEST_F(TokenFileTest, BadAddsWriteNothing) {
    add_token(path_, "a", {Scope::kSend}, {*QueuePattern::parse("q")});
    const std::string before = text();
    const auto q = *QueuePattern::parse("q");
    EXPECT_THROW(add_token(path_, "a", {Scope::kSend}, {q}), AuthFileError);  // taken
    EXPECT_THROW(add_token(path_, "", {Scope::kSend}, {q}), AuthFileError);
    EXPECT_THROW(add_token(path_, "b c", {Scope::kSend}, {q}), AuthFileError);
    EXPECT_THROW(add_token(path_, "#b", {Scope::kSend}, {q}), AuthFileError);
    EXPECT_THROW(add_token(path_, "b", {}, {q}), AuthFileError);
    EXPECT_THROW(add_token(path_, "b", {Scope::kSend}, {}), AuthFileError);
    EXPECT_EQ(text(), before);
}

TEST_F(TokenFileTest, RevokeRemovesOneEntryAndKeepsTheRest) {
    {
        std::ofstream out(path_);
        out << "# keep this comment\n";
    }
    const std::string keep = add_token(path_, "keep", {Scope::kRead}, {*QueuePattern::parse("*")});
    const std::string gone = add_token(path_, "gone", {Scope::kRead}, {*QueuePattern::parse("*")});
    EXPECT_TRUE(revoke_token(path_, "gone"));
    EXPECT_FALSE(revoke_token(path_, "gone"));
    EXPECT_FALSE(revoke_token(path_, "kee"));  // names match whole, never by prefix
    const TokenTable t = load_token_file(path_);
    EXPECT_EQ(t.authorize(gone, Scope::kRead, "q"), AuthDecision::kUnauthorized);
    EXPECT_EQ(t.authorize(keep, Scope::kRead, "q"), AuthDecision::kAllowed);
    EXPECT_TRUE(text().starts_with("# keep this comment\n"));
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_FALSE(std::filesystem::exists(path_.string() + ".new"));
}

TEST_F(TokenFileTest, PatternsReadBackAsTheyWereWritten) {
    const std::string widest = test::widest_queue_pattern();
    const std::vector<std::string> texts = {"orders", "billing-*", "a\\*", widest, widest + "*"};
    std::vector<QueuePattern> patterns;
    for (const std::string& t : texts) {
        const auto p = QueuePattern::parse(t);
        ASSERT_TRUE(p) << t;
        patterns.push_back(*p);
    }
    const std::string token = add_token(path_, "wide", {Scope::kSend, Scope::kRead}, patterns);
    add_token(path_, "all", {Scope::kConsume}, {*QueuePattern::parse("*")});

    const TokenTable table = load_token_file(path_);
    ASSERT_EQ(table.entries().size(), 2u);
    const TokenEntry& wide = table.entries()[0];
    EXPECT_EQ(wide.name, "wide");
    EXPECT_EQ(wide.scopes, (std::vector<Scope>{Scope::kSend, Scope::kRead}));
    ASSERT_EQ(wide.queues.size(), patterns.size());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        EXPECT_EQ(wide.queues[i].text(), texts[i]);
        EXPECT_EQ(wide.queues[i].literal(), patterns[i].literal()) << texts[i];
        EXPECT_EQ(wide.queues[i].is_prefix(), patterns[i].is_prefix()) << texts[i];
    }
    // The widest pattern names a queue the library takes, and the token reaches it.
    const std::string queue = patterns[3].literal();
    EXPECT_NO_THROW(validate_queue_name(queue));
    EXPECT_EQ(queue.size(), 91u);  // 94 printable bytes but the braces and the comma
    EXPECT_EQ(table.authorize(token, Scope::kSend, queue), AuthDecision::kAllowed);
    EXPECT_EQ(table.authorize(token, Scope::kSend, queue + "-eu"), AuthDecision::kAllowed);
    EXPECT_EQ(table.authorize(token, Scope::kSend, "a*"), AuthDecision::kAllowed);
    EXPECT_EQ(table.authorize(token, Scope::kSend, "ab"), AuthDecision::kForbidden);
    EXPECT_EQ(table.entries()[1].name, "all");
    ASSERT_EQ(table.entries()[1].queues.size(), 1u);
    EXPECT_TRUE(table.entries()[1].queues[0].is_prefix());
    EXPECT_EQ(table.entries()[1].queues[0].literal(), "");
    // What is loaded prints back to the file's own lines.
    EXPECT_EQ(wide.line() + "\n" + table.entries()[1].line() + "\n", text());
}

TEST_F(TokenFileTest, APatternWithACommaIsRefusedNotSplit) {
    // `a,b` is a queue name, and a pattern; written to a line it would read back as the two
    // patterns `a` and `b`, granting queues the token was never given.
    const auto comma = QueuePattern::parse("a,b");
    ASSERT_TRUE(comma);
    add_token(path_, "first", {Scope::kSend}, {*QueuePattern::parse("q")});
    const std::string before = text();
    try {
        add_token(path_, "comma", {Scope::kSend}, {*QueuePattern::parse("q"), *comma});
        ADD_FAILURE() << "added a pattern with a comma";
    } catch (const AuthFileError& e) {
        EXPECT_NE(std::string(e.what()).find("\"a,b\""), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("comma"), std::string::npos) << e.what();
    }
    EXPECT_EQ(text(), before);
    EXPECT_EQ(load_token_file(path_).entries().size(), 1u);
}

TEST_F(TokenFileTest, AFileWithAByteNoQueueNameHoldsIsRefusedAndLeftAsItIs) {
    const std::string hash = token_sha256_hex("t");
    // The refused byte in the second line's patterns, after a good pattern.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"q,{orders}", "bad queue pattern"},
        {"q,or\001ders", "bad queue pattern"},
        {"q,nul" + std::string(1, '\0') + "x", "bad queue pattern"},
        {"q,q\x7f", "bad queue pattern"},
        {"q,caf\xc3\xa9*", "bad queue pattern"},
        {"q,or\rders", "bad queue pattern"},
        // White space ends the field: the line has one field too many.
        {"q,a b", "expected NAME SHA256-HEX SCOPES PATTERNS"},
        {"q,a\tb", "expected NAME SHA256-HEX SCOPES PATTERNS"},
    };
    for (const auto& [patterns, why] : cases) {
        std::filesystem::remove(path_);
        add_token(path_, "good", {Scope::kSend}, {*QueuePattern::parse("*")});
        {
            std::ofstream out(path_, std::ios::app | std::ios::binary);
            out << "bad " << hash << " send " << patterns << "\n";
        }
        const std::string before = text();
        try {
            load_token_file(path_);
            ADD_FAILURE() << "loaded: " << patterns;
        } catch (const AuthFileError& e) {
            EXPECT_NE(std::string(e.what()).find("auth file line 2: " + why), std::string::npos)
                << e.what();
        }
        // Neither an add nor a revoke writes over a file it cannot read whole.
        EXPECT_THROW(add_token(path_, "more", {Scope::kRead}, {*QueuePattern::parse("q")}),
                     AuthFileError);
        EXPECT_THROW(revoke_token(path_, "good"), AuthFileError);
        EXPECT_THROW(revoke_token(path_, "bad"), AuthFileError);
        EXPECT_EQ(text(), before) << patterns;
        EXPECT_FALSE(std::filesystem::exists(path_.string() + ".new"));
    }
}

TEST_F(TokenFileTest, AMissingFileIsAClearError) {
    try {
        load_token_file(path_);
        ADD_FAILURE() << "loaded a missing file";
    } catch (const AuthFileError& e) {
        EXPECT_NE(std::string(e.what()).find(path_.string()), std::string::npos);
    }
}

}  // namespace
}  // namespace delayq::server
