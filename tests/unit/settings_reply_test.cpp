// settings.lua's reply read by settings_codec::decode (src/codec/settings.hpp) when Redis holds
// what no script of this version wrote. Found by fuzz/resp_fuzz.cpp: an empty reply escaped as
// std::out_of_range, and a stored number past an int's range was converted anyway (undefined
// behaviour); both are ServerErrors now.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "codec/settings.hpp"
#include "delayq/error.hpp"
#include "reply_builders.hpp"

namespace delayq::detail {
namespace {

Reply settings_reply(const std::vector<std::string>& values) { return replies::texts(values); }

TEST(SettingsReply, ReadsTheStoredSettings) {
    const QueueSettings s = settings_codec::decode(
        settings_reply({"3 0.2.0", "max_attempts", "7", "backoff_initial_ms", "250",
                        "backoff_multiplier", "1.5", "dead_max_count", "1000", "paused", "1"}));
    EXPECT_EQ(s.layout, 3);
    EXPECT_EQ(s.max_attempts, 7);
    EXPECT_EQ(s.backoff.initial, Duration(250));
    EXPECT_DOUBLE_EQ(s.backoff.multiplier, 1.5);
    EXPECT_EQ(s.dead_max_count, 1000U);
    EXPECT_TRUE(s.paused);
}

TEST(SettingsReply, AnEmptyReplyIsAServerError) {
    EXPECT_THROW(settings_codec::decode(settings_reply({})), ServerError);
}

TEST(SettingsReply, NumbersPastTheirTypeAreServerErrors) {
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"max_attempts", "1e300"},
                                                          {"max_attempts", "-3000000000"},
                                                          {"backoff_max_ms", "1e19"},
                                                          {"dead_max_count", "-1"},
                                                          {"dead_max_age_ms", "nan"},
                                                          {"max_attempts", "inf"}}) {
        EXPECT_THROW(settings_codec::decode(settings_reply({"3 0.2.0", name, value})), ServerError)
            << name << " " << value;
    }
}

}  // namespace
}  // namespace delayq::detail
