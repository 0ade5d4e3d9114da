// Passwords apart from the URL (ClientOptions::password), and URLs masked wherever delayq
// shows one.
#include <gtest/gtest.h>

#include <string>

#include "support/acl.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

TEST(MaskedUrlTest, HidesThePasswordAndNothingElse) {
    EXPECT_EQ(masked_url("redis://alice:s3cret@host:6380/2"), "redis://alice:***@host:6380/2");
    EXPECT_EQ(masked_url("redis://:s3cret@host"), "redis://:***@host");
    EXPECT_EQ(masked_url("redis://s3cret@host"), "redis://***@host");
    EXPECT_EQ(masked_url("rediss://u:p%40ss@[::1]:6380"), "rediss://u:***@[::1]:6380");
    // parse_url splits user info at the last '@' before the first '/': so does the mask.
    EXPECT_EQ(masked_url("redis://u:p@ss@host/1"), "redis://u:***@host/1");
    EXPECT_EQ(masked_url("redis://alice:@host"), "redis://alice:@host");
    EXPECT_EQ(masked_url("redis://host:6379/0"), "redis://host:6379/0");
    EXPECT_EQ(masked_url("unix:///run/redis.sock?db=1"), "unix:///run/redis.sock?db=1");
    EXPECT_EQ(masked_url("not a url"), "not a url");
}

class PasswordOptionTest : public RedisTest {
  protected:
    RedisServerOptions server_options() const override { return {.password = "s3cret"}; }
    void SetUp() override { server_ = std::make_unique<RedisServer>(server_options()); }
    std::string base() const { return "127.0.0.1:" + std::to_string(server_->port()); }
    void expect_usable(Client& c) {
        c.queue("q").send("x");
        EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
    }
};

TEST_F(PasswordOptionTest, PasswordApartFromTheUrl) {
    Client c("redis://" + base(), {.password = "s3cret"});
    expect_usable(c);
}

TEST_F(PasswordOptionTest, TheOptionReplacesTheUrlsPassword) {
    Client c("redis://:wrong@" + base(), {.password = "s3cret"});
    expect_usable(c);
}

TEST_F(PasswordOptionTest, AUrlWithUserInfoButNoColonNamesTheUser) {
    ASSERT_FALSE(add_acl_user(server(), "alice", "wonderland").is_error());
    Client c("redis://alice@" + base(), {.password = "wonderland"});
    expect_usable(c);
}

TEST_F(PasswordOptionTest, ARefusedSelectIsAPermissionErrorNamingIt) {
    ASSERT_FALSE(add_acl_user(server(), "alice", "wonderland", {"-select"}).is_error());
    Client c("redis://alice@" + base() + "/1", {.password = "wonderland"});
    try {
        c.ping();
        FAIL() << "SELECT was not refused";
    } catch (const PermissionError& e) {
        EXPECT_EQ(e.command(), "SELECT");
        EXPECT_EQ(std::string(e.what()).find("wonderland"), std::string::npos) << e.what();
    }
}

TEST_F(PasswordOptionTest, EmptyPasswordIsInvalid) {
    EXPECT_THROW(Client("redis://" + base(), {.password = ""}), InvalidArgument);
}

TEST_F(PasswordOptionTest, ErrorsNeverShowThePassword) {
    const ClientOptions quick{.connect_timeout = 500ms, .command_timeout = 500ms};
    ASSERT_FALSE(add_acl_user(server(), "alice", "wonderland").is_error());
    const std::string nowhere = "127.0.0.1:" + std::to_string(free_port());
    const std::vector<std::pair<std::string, ClientOptions>> cases = {
        {"redis://alice:not-wonderland@" + base(), quick},
        {"redis://alice@" + base(),
         ClientOptions{
             .connect_timeout = 500ms, .command_timeout = 500ms, .password = "not-wonderland"}},
        {"redis://alice:not-wonderland@" + nowhere, quick},
    };
    for (const auto& [url, options] : cases) {
        try {
            Client(url, options).queue("q").send("x");
            ADD_FAILURE() << "no error";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).find("not-wonderland"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(server().dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
