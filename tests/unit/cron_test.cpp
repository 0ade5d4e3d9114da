// Cron expressions apart from any zone: what each field's syntax matches, the day-of-month and
// day-of-week rule, and the message of each malformed expression. Expected dates were worked out
// by hand and with python3's calendar, not by this parser.
#include "schedule/cron.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

using std::chrono::local_seconds;

local_seconds local(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
    return std::chrono::local_days{std::chrono::year{y} / std::chrono::month{mo} /
                                   std::chrono::day{d}} +
           std::chrono::hours{h} + std::chrono::minutes{mi} + std::chrono::seconds{s};
}

std::string text(local_seconds t) {
    const auto day = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day ymd{day};
    const std::chrono::hh_mm_ss hms{t - day};
    char out[32];
    std::snprintf(out, sizeof out, "%04d-%02u-%02u %02d:%02d:%02d", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                  static_cast<int>(hms.seconds().count()));
    return out;
}

// The first `n` matches at or after `from`, each searched from one second after the last.
std::vector<std::string> matches(std::string_view expr, local_seconds from, int n) {
    const CronExpr cron = CronExpr::parse(expr);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
        const auto next = cron.next(from);
        if (!next) break;
        EXPECT_TRUE(cron.matches(*next)) << expr << " at " << text(*next);
        out.push_back(text(*next));
        from = *next + std::chrono::seconds{1};
    }
    return out;
}

using Texts = std::vector<std::string>;

TEST(Cron, MinuteStepsRangesAndLists) {
    EXPECT_EQ(matches("*/20 * * * *", local(2024, 1, 1, 10, 5), 4),
              (Texts{"2024-01-01 10:20:00", "2024-01-01 10:40:00", "2024-01-01 11:00:00",
                     "2024-01-01 11:20:00"}));
    EXPECT_EQ(matches("5,10-12,50-59/4 * * * *", local(2024, 1, 1, 10, 0), 7),
              (Texts{"2024-01-01 10:05:00", "2024-01-01 10:10:00", "2024-01-01 10:11:00",
                     "2024-01-01 10:12:00", "2024-01-01 10:50:00", "2024-01-01 10:54:00",
                     "2024-01-01 10:58:00"}));
    // a/n runs from a to the end of the field.
    EXPECT_EQ(matches("0 20/2 * * *", local(2024, 1, 1), 3),
              (Texts{"2024-01-01 20:00:00", "2024-01-01 22:00:00", "2024-01-02 20:00:00"}));
}

TEST(Cron, FromAMatchingSecondIsThatSecond) {
    EXPECT_EQ(matches("30 9 * * *", local(2024, 5, 1, 9, 30), 1), (Texts{"2024-05-01 09:30:00"}));
    EXPECT_EQ(matches("30 9 * * *", local(2024, 5, 1, 9, 30, 1), 1),
              (Texts{"2024-05-02 09:30:00"}));
}

TEST(Cron, MonthAndDayNamesAnyCase) {
    EXPECT_EQ(matches("0 0 1 jan,Mar-MAY/2 *", local(2024, 1, 2), 3),
              (Texts{"2024-03-01 00:00:00", "2024-05-01 00:00:00", "2025-01-01 00:00:00"}));
    // 2024-06-07 is a Friday.
    EXPECT_EQ(matches("0 9 * * mon-Fri", local(2024, 6, 7, 10), 3),
              (Texts{"2024-06-10 09:00:00", "2024-06-11 09:00:00", "2024-06-12 09:00:00"}));
    EXPECT_EQ(matches("0 9 * * SAT,sun", local(2024, 6, 7), 3),
              (Texts{"2024-06-08 09:00:00", "2024-06-09 09:00:00", "2024-06-15 09:00:00"}));
}

TEST(Cron, SundayIsZeroAndSeven) {
    const Texts sundays{"2024-06-09 00:00:00", "2024-06-16 00:00:00"};
    EXPECT_EQ(matches("0 0 * * 0", local(2024, 6, 7), 2), sundays);
    EXPECT_EQ(matches("0 0 * * 7", local(2024, 6, 7), 2), sundays);
    EXPECT_EQ(matches("0 0 * * SUN", local(2024, 6, 7), 2), sundays);
    // 5-7: Friday, Saturday, Sunday.
    EXPECT_EQ(matches("0 0 * * 5-7", local(2024, 6, 7), 4),
              (Texts{"2024-06-07 00:00:00", "2024-06-08 00:00:00", "2024-06-09 00:00:00",
                     "2024-06-14 00:00:00"}));
}

TEST(Cron, QuestionMarkInADayFieldIsAWildcard) {
    EXPECT_EQ(matches("0 12 ? * MON", local(2024, 6, 7), 1), (Texts{"2024-06-10 12:00:00"}));
    EXPECT_EQ(matches("0 12 15 * ?", local(2024, 6, 7), 2),
              (Texts{"2024-06-15 12:00:00", "2024-07-15 12:00:00"}));
}

TEST(Cron, DayOfMonthOrDayOfWeekWhenBothAreRestricted) {
    // Every 13th and every Friday (python3: Fridays of Sept/Oct 2024, and Sunday Oct 13).
    EXPECT_EQ(matches("0 0 13 * FRI", local(2024, 9, 1), 9),
              (Texts{"2024-09-06 00:00:00", "2024-09-13 00:00:00", "2024-09-20 00:00:00",
                     "2024-09-27 00:00:00", "2024-10-04 00:00:00", "2024-10-11 00:00:00",
                     "2024-10-13 00:00:00", "2024-10-18 00:00:00", "2024-10-25 00:00:00"}));
    // Only day-of-week restricted: it alone decides.
    EXPECT_EQ(matches("0 0 * * FRI", local(2024, 10, 12), 1), (Texts{"2024-10-18 00:00:00"}));
}

TEST(Cron, LeapDay) {
    EXPECT_EQ(matches("0 0 29 2 *", local(2025, 1, 1), 3),
              (Texts{"2028-02-29 00:00:00", "2032-02-29 00:00:00", "2036-02-29 00:00:00"}));
    // The 31st exists only in seven months.
    EXPECT_EQ(matches("0 0 31 * *", local(2024, 4, 1), 3),
              (Texts{"2024-05-31 00:00:00", "2024-07-31 00:00:00", "2024-08-31 00:00:00"}));
}

TEST(Cron, SixFieldsStartWithSeconds) {
    EXPECT_EQ(matches("*/20 * * * * *", local(2024, 1, 1, 12, 0, 5), 3),
              (Texts{"2024-01-01 12:00:20", "2024-01-01 12:00:40", "2024-01-01 12:01:00"}));
    EXPECT_EQ(matches("15 30 8 * * *", local(2024, 1, 1, 9), 1), (Texts{"2024-01-02 08:30:15"}));
    // Five fields run at second 0.
    EXPECT_EQ(matches("* * * * *", local(2024, 1, 1, 9, 0, 1), 1), (Texts{"2024-01-01 09:01:00"}));
}

TEST(Cron, Macros) {
    const auto from = local(2024, 6, 7, 10, 30);  // a Friday
    EXPECT_EQ(matches("@yearly", from, 1), (Texts{"2025-01-01 00:00:00"}));
    EXPECT_EQ(matches("@annually", from, 1), (Texts{"2025-01-01 00:00:00"}));
    EXPECT_EQ(matches("@monthly", from, 1), (Texts{"2024-07-01 00:00:00"}));
    EXPECT_EQ(matches("@weekly", from, 1), (Texts{"2024-06-09 00:00:00"}));
    EXPECT_EQ(matches("@daily", from, 1), (Texts{"2024-06-08 00:00:00"}));
    EXPECT_EQ(matches("@midnight", from, 1), (Texts{"2024-06-08 00:00:00"}));
    EXPECT_EQ(matches("@HOURLY", from, 1), (Texts{"2024-06-07 11:00:00"}));
}

TEST(Cron, WhichExpressionsFollowElapsedTime) {
    EXPECT_TRUE(CronExpr::parse("*/15 * * * *").follows_elapsed_time());
    EXPECT_TRUE(CronExpr::parse("0 */2 * * *").follows_elapsed_time());
    EXPECT_TRUE(CronExpr::parse("@hourly").follows_elapsed_time());
    EXPECT_FALSE(CronExpr::parse("30 2 * * *").follows_elapsed_time());
    EXPECT_FALSE(CronExpr::parse("*/15 2 * * *").follows_elapsed_time());
    EXPECT_FALSE(CronExpr::parse("@daily").follows_elapsed_time());
}

TEST(Cron, EndsWithTheYear9999) {
    EXPECT_EQ(matches("59 23 31 12 *", local(9999, 6, 1), 2), (Texts{"9999-12-31 23:59:00"}));
    EXPECT_FALSE(CronExpr::parse("0 0 29 2 *").next(local(9996, 3, 1)).has_value());
}

TEST(Cron, SearchJumpsInsteadOfScanning) {
    // Second-by-second scanning would take minutes here; jumping takes microseconds.
    const CronExpr cron = CronExpr::parse("0 0 29 2 *");
    local_seconds t = local(2001, 1, 1);
    const auto began = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i) t = cron.next(t + std::chrono::seconds{1}).value();
    EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds{1});
    EXPECT_EQ(text(t), "6124-02-29 00:00:00");
}

std::string error_of(std::string_view expr) {
    try {
        CronExpr::parse(expr);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "no error";
}

TEST(Cron, BadExpressionsSayWhichFieldAndWhy) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"61 * * * *", "cron: minute field \"61\" is out of range 0-59"},
        {"* 24 * * *", "cron: hour field \"24\" is out of range 0-23"},
        {"* * 0 * *", "cron: day-of-month field \"0\" is out of range 1-31"},
        {"* * * 13 *", "cron: month field \"13\" is out of range 1-12"},
        {"* * * * 8", "cron: day-of-week field \"8\" is out of range 0-7"},
        {"60 * * * * *", "cron: second field \"60\" is out of range 0-59"},
        {"10-70 * * * *", "cron: minute field \"10-70\" is out of range 0-59"},
        {"99999999999 * * * *", "minute field \"99999999999\" is out of range"},
        {"*/0 * * * *", "cron: minute field \"*/0\" has a bad step: must be from 1 to 60"},
        {"* */25 * * *", "cron: hour field \"*/25\" has a bad step: must be from 1 to 24"},
        {"*/x * * * *", "cron: minute field \"*/x\" has a bad step: \"x\" is not a number"},
        {"*/ * * * *", "has a bad step"},
        {"* * * FOO *", "cron: month field \"FOO\" is not a number or a month name (JAN-DEC)"},
        {"* * * * FUN", "cron: day-of-week field \"FUN\" is not a number or a day name"},
        {"x * * * *", "cron: minute field \"x\" is not a number"},
        {"* * * * MON-", "day-of-week field \"MON-\" has an empty value"},
        {"5-2 * * * *", "cron: minute field \"5-2\" is a range from high to low"},
        {"1,,2 * * * *", "cron: minute field \"1,,2\" has an empty list item"},
        {"1, * * * *", "has an empty list item"},
        {"? * * * *", "\"?\" is only for day-of-month and day-of-week"},
        {"* * L * *", "day-of-month field \"L\": L/W/# are not supported"},
        {"* * 15W * *", "day-of-month field \"15W\": L/W/# are not supported"},
        {"* * * * 5#3", "day-of-week field \"5#3\": L/W/# are not supported"},
        {"* * * * FRIL", "L/W/# are not supported"},
        {"* * *", "cron: \"* * *\" has 3 fields, not 5"},
        {"1 2 3 4 5 6 7", "has 7 fields, not 5"},
        {"", "cron: the expression is empty"},
        {"  \t ", "cron: the expression is empty"},
        {"@reboot", "cron: \"@reboot\" is not one of @yearly"},
        {"0 0 30 2 *", "day-of-month field \"30\" never occurs in the months of month field"},
        {"0 0 31 4,6 *", "never occurs"},
    };
    for (const auto& [expr, fragment] : cases) {
        const std::string error = error_of(expr);
        EXPECT_NE(error.find(fragment), std::string::npos)
            << "\"" << expr << "\" gave: " << error << "\nexpected: " << fragment;
    }
    // A day that exists in some month given, or with a day of the week, is fine.
    EXPECT_EQ(error_of("0 0 31 2,3 *"), "no error");
    EXPECT_EQ(error_of("0 0 30 2 MON"), "no error");
}

}  // namespace
}  // namespace delayq::detail
