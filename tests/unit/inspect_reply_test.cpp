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

namespace delayq::detail {
namespace {

// Named apart from the other files' helpers: a unity build compiles them as one.
Reply inspect_text(std::string s) {
    Reply r;
    r.type = Reply::Type::kString;
    r.str = std::move(s);
    return r;
}

Reply inspect_int(std::int64_t n) {
    Reply r;
    r.type = Reply::Type::kInteger;
    r.integer = n;
    return r;
}

Reply inspect_array(std::vector<Reply> items) {
    Reply r;
    r.type = Reply::Type::kArray;
    r.elements = std::move(items);
    return r;
}

Reply texts(const std::vector<std::string>& values) {
    std::vector<Reply> items;
    for (const auto& v : values) items.push_back(inspect_text(v));
    return inspect_array(std::move(items));
}

// stats.lua's reply: now, the four counts, oldest and next due, the totals, the lateness.
Reply stats_reply(const std::vector<std::string>& totals,
                  const std::vector<std::string>& lateness) {
    return inspect_array({inspect_int(1000), inspect_int(1), inspect_int(2), inspect_int(0),
                          inspect_int(0), inspect_int(-1), inspect_int(-1), texts(totals),
                          texts(lateness)});
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
    EXPECT_THROW(inspect_codec::decode_get(texts({"ready"}), "m"), ServerError);
    EXPECT_THROW(inspect_codec::decode_get(texts({"ready", "1", "2"}), "m"), ServerError);
    EXPECT_FALSE(inspect_codec::decode_get(inspect_array({}), "m").has_value());
}

}  // namespace
}  // namespace delayq::detail
