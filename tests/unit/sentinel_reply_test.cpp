// What the sentinels and a master answer (src/redis/sentinel.hpp), parsed without a server: the
// shapes a real sentinel rarely sends (nil, errors, malformed messages) included.
#include <gtest/gtest.h>

#include "delayq/error.hpp"
#include "redis/sentinel.hpp"

namespace delayq::detail {
namespace {

// Named apart from cluster_map_test.cpp's helpers: a unity build compiles both as one.
Reply bulk(std::string s) {
    Reply r;
    r.type = Reply::Type::kString;
    r.str = std::move(s);
    return r;
}

Reply list(std::vector<Reply> elements) {
    Reply r;
    r.type = Reply::Type::kArray;
    r.elements = std::move(elements);
    return r;
}

Reply of_type(Reply::Type type, std::string s = {}) {
    Reply r;
    r.type = type;
    r.str = std::move(s);
    return r;
}

TEST(SentinelReplyTest, AMasterAddressIsAHostAndAPort) {
    EXPECT_EQ(parse_master_address(list({bulk("10.0.0.5"), bulk("6380")})),
              (MasterAddress{"10.0.0.5", 6380}));
    // A sentinel that monitors no master of that name answers nil.
    EXPECT_EQ(parse_master_address(Reply{}), std::nullopt);
    EXPECT_THROW(parse_master_address(list({bulk("h"), bulk("0")})), ServerError);
    EXPECT_THROW(parse_master_address(list({bulk("h"), bulk("x")})), ServerError);
    EXPECT_THROW(parse_master_address(list({bulk("h")})), ServerError);
    EXPECT_THROW(parse_master_address(of_type(Reply::Type::kError, "NOPERM")), ServerError);
}

TEST(SentinelReplyTest, RoleIsTheFirstElement) {
    EXPECT_EQ(parse_role(list({bulk("master"), of_type(Reply::Type::kInteger)})), "master");
    EXPECT_EQ(parse_role(list({bulk("slave"), bulk("h"), bulk("1")})), "slave");
    EXPECT_THROW(parse_role(bulk("master")), ServerError);
    EXPECT_THROW(parse_role(list({})), ServerError);
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
