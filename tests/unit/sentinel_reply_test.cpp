// What the sentinels and a master answer (src/redis/sentinel.hpp), parsed without a server: the
// shapes a real sentinel rarely sends (nil, errors, malformed messages) included.
#include <gtest/gtest.h>

#include "delayq/error.hpp"
#include "redis/sentinel.hpp"
#include "reply_builders.hpp"

namespace delayq::detail {
namespace {

TEST(SentinelReplyTest, AMasterAddressIsAHostAndAPort) {
    EXPECT_EQ(
        parse_master_address(replies::array({replies::text("10.0.0.5"), replies::text("6380")})),
        (MasterAddress{"10.0.0.5", 6380}));
    // A sentinel that monitors no master of that name answers nil.
    EXPECT_EQ(parse_master_address(Reply{}), std::nullopt);
    EXPECT_THROW(parse_master_address(replies::array({replies::text("h"), replies::text("0")})),
                 ServerError);
    EXPECT_THROW(parse_master_address(replies::array({replies::text("h"), replies::text("x")})),
                 ServerError);
    EXPECT_THROW(parse_master_address(replies::array({replies::text("h")})), ServerError);
    EXPECT_THROW(parse_master_address(replies::of_type(Reply::Type::kError, "NOPERM")),
                 ServerError);
}

TEST(SentinelReplyTest, RoleIsTheFirstElement) {
    EXPECT_EQ(parse_role(replies::array(
                  {replies::text("master"), replies::of_type(Reply::Type::kInteger)})),
              "master");
    EXPECT_EQ(parse_role(
                  replies::array({replies::text("slave"), replies::text("h"), replies::text("1")})),
              "slave");
    EXPECT_THROW(parse_role(replies::text("master")), ServerError);
    EXPECT_THROW(parse_role(replies::array({})), ServerError);
}

TEST(SentinelReplyTest, ASwitchMasterMessageNamesTheNewAddressOfItsMaster) {
    EXPECT_EQ(parse_switch_master("orders 10.0.0.1 6379 10.0.0.2 6380", "orders"),
              (MasterAddress{"10.0.0.2", 6380}));
    EXPECT_EQ(parse_switch_master("other 10.0.0.1 6379 10.0.0.2 6380", "orders"), std::nullopt);
    EXPECT_EQ(parse_switch_master("orders 10.0.0.1 6379 10.0.0.2", "orders"), std::nullopt);
    EXPECT_EQ(parse_switch_master("orders 10.0.0.1 6379 10.0.0.2 6380 x", "orders"), std::nullopt);
    EXPECT_EQ(parse_switch_master("orders 10.0.0.1 6379 10.0.0.2 99999", "orders"), std::nullopt);
    EXPECT_EQ(parse_switch_master("", "orders"), std::nullopt);
}

}  // namespace
}  // namespace delayq::detail
