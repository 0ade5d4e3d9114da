// QueuePattern (include/delayq/queue_pattern.hpp) on text no queue name can hold. Found by
// fuzz/token_file_fuzz.cpp: a pattern with a carriage return parsed, and the auth file line it
// was written back to read as another pattern.
#include "delayq/queue_pattern.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace delayq {
namespace {

TEST(QueuePatternText, RefusesWhatNoQueueNameHolds) {
    const std::vector<std::string> texts = {
        "or\rders", "orders\r", "a b",         "tab\t*",
        "{orders}", "q\x7f",    "caf\xc3\xa9", std::string("nul\0", 4)};
    for (const std::string& text : texts) {
        EXPECT_FALSE(QueuePattern::parse(text)) << text;
    }
}

TEST(QueuePatternText, TakesEveryPrintableNameCharacter) {
    const auto pattern = QueuePattern::parse("billing/eu-1.v2_x:y\\**");
    ASSERT_TRUE(pattern);
    EXPECT_TRUE(pattern->is_prefix());
    EXPECT_EQ(pattern->literal(), "billing/eu-1.v2_x:y*");
    EXPECT_TRUE(pattern->matches("billing/eu-1.v2_x:y*-7"));
}

}  // namespace
}  // namespace delayq
