// The replies of get.lua, list.lua and stats.lua read by src/codec/inspect.cpp when Redis answers
// what no script of this version sends. Found by fuzz/resp_fuzz.cpp: a short message reply
// escaped as std::out_of_range and a total or lateness figure that was not digits as
// std::invalid_argument (std::vector::at, std::stoull); both are ServerErrors now.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/inspect.hpp"
#include "delayq/error.hpp"
#include "reply_builders.hpp"

namespace delayq::detail {
namespace {

// stats.lua's reply: now, the four counts, oldest and next due, the totals, the lateness.
Reply stats_reply(const std::vector<std::string>& totals,
                  const std::vector<std::string>& lateness) {
    return replies::array({replies::integer(1000), replies::integer(1), replies::integer(2),
                           replies::integer(0), replies::integer(0), replies::integer(-1),
                           replies::integer(-1), replies::texts(totals), replies::texts(lateness)});
}

TEST(InspectReply, ReadsAStatsReply) {
    const QueueStats s = inspect_codec::decode_stats(
        stats_reply({"sent", "3", "acked", "2"}, {"sum_ms", "7", "5", "2", "+Inf", "1"}));
    EXPECT_EQ(s.ready, 2U);
    EXPECT_EQ(s.totals.sent, 3U);
    EXPECT_EQ(s.totals.acked, 2U);
    ASSERT_EQ(s.lateness.buckets.size(), 2U);
    EXPECT_EQ(s.lateness.buckets[1].count, 3U) << "cumulative";
    EXPECT_EQ(s.lateness.sum, Duration(7));
}

TEST(InspectReply, FiguresThatAreNotCountsAreServerErrors) {
    const std::vector<std::string> lateness = {"sum_ms", "7", "5", "2", "+Inf", "1"};
    for (const char* bad : {"", "x", "1.5", "-3", "99999999999999999999"}) {
        SCOPED_TRACE(bad);
        EXPECT_THROW(inspect_codec::decode_stats(stats_reply({"sent", bad}, lateness)),
                     ServerError);
        EXPECT_THROW(inspect_codec::decode_stats(
                         stats_reply({"sent", "1"}, {"sum_ms", "7", "5", bad, "+Inf", "1"})),
                     ServerError);
    }
    EXPECT_THROW(inspect_codec::decode_stats(
                     stats_reply({"sent", "1"}, {"sum_ms", "x", "5", "2", "+Inf", "1"})),
                 ServerError);
    EXPECT_THROW(inspect_codec::decode_stats(
                     stats_reply({"sent", "1"}, {"sum_ms", "7", "five", "2", "+Inf", "1"})),
                 ServerError);
}

TEST(InspectReply, AShortMessageReplyIsAServerError) {
    EXPECT_THROW(inspect_codec::decode_get(replies::texts({"ready"}), "m"), ServerError);
    EXPECT_THROW(inspect_codec::decode_get(replies::texts({"ready", "1", "2"}), "m"), ServerError);
    EXPECT_FALSE(inspect_codec::decode_get(replies::array({}), "m").has_value());
}

}  // namespace
}  // namespace delayq::detail
