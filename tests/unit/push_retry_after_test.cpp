// Retry-After values: delay-seconds and the three HTTP-date forms, relative to a fixed now
// (Saturday 2026-12-05 12:00:00 UTC; weekdays checked with python3's datetime).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "push/retry_after.hpp"

namespace delayq::push {
namespace {

using std::chrono::milliseconds;

const std::chrono::system_clock::time_point kNow =
    std::chrono::sys_days{std::chrono::year{2026} / 12 / 5} + std::chrono::hours{12};

std::optional<milliseconds> retry_after(std::string_view value,
                                        std::chrono::system_clock::time_point now = kNow) {
    return parse_retry_after(value, now);
}

TEST(PushRetryAfter, ReadsDelaySeconds) {
    EXPECT_EQ(retry_after("120"), milliseconds{120'000});
    EXPECT_EQ(retry_after("0"), milliseconds{0});
    EXPECT_EQ(retry_after("007"), milliseconds{7'000});
    EXPECT_EQ(retry_after(" \t60 \t"), milliseconds{60'000});
}

TEST(PushRetryAfter, CapsLongWaitsAtADay) {
    EXPECT_EQ(kMaxRetryAfter, milliseconds{86'400'000});
    EXPECT_EQ(retry_after("86400"), kMaxRetryAfter);
    EXPECT_EQ(retry_after("86401"), kMaxRetryAfter);
    EXPECT_EQ(retry_after("99999999999999999999999999999999"), kMaxRetryAfter);
    EXPECT_EQ(retry_after("Sat, 01 Jan 2050 00:00:00 GMT"), kMaxRetryAfter);
}

TEST(PushRetryAfter, RefusesWhatIsNeitherForm) {
    for (const char* value : {"",
                              "  ",
                              "-1",
                              "+5",
                              "1.5",
                              "5s",
                              "5 s",
                              "1e3",
                              "abc",
                              "0x10",
                              "120,",
                              "Sat, 05 Dec 2026 12:00:00 UTC",
                              "Sat, 05 Dec 2026 12:00:00 GMT x",
                              "Sat 05 Dec 2026 12:00:00 GMT",
                              "Sat, 5 Dec 2026 12:00:00 GMT",
                              "Sat, 05 Dec 26 12:00:00 GMT",
                              "Sat, 05 December 2026 12:00:00 GMT",
                              "Sat, 05 Dec 2026 12:00 GMT",
                              "Saturday, 05 Dec 2026 12:00:00 GMT",
                              "Sat, 05-Dec-26 12:00:00 GMT",
                              "Sat Dec 5 12:00:00 2026",
                              "Sat Dec  5 12:00:00 26"}) {
        EXPECT_EQ(retry_after(value), std::nullopt) << value;
    }
}

TEST(PushRetryAfter, RefusesImpossibleDates) {
    for (const char* value : {"Tue, 31 Feb 2026 12:00:00 GMT", "Sat, 00 Dec 2026 12:00:00 GMT",
                              "Sat, 05 Dec 2026 24:00:00 GMT", "Sat, 05 Dec 2026 12:60:00 GMT",
                              "Sat, 05 Dec 2026 12:00:61 GMT", "Sun Feb 29 12:00:00 2026"}) {
        EXPECT_EQ(retry_after(value), std::nullopt) << value;
    }
}

TEST(PushRetryAfter, ReadsAnImfFixdate) {
    EXPECT_EQ(retry_after("Sat, 05 Dec 2026 12:01:00 GMT"), milliseconds{60'000});
    EXPECT_EQ(retry_after("sat, 05 dec 2026 12:01:00 gmt"), milliseconds{60'000});
    EXPECT_EQ(retry_after("Sun, 06 Dec 2026 11:59:59 GMT"), milliseconds{86'399'000});
    // A leap second, as the grammar allows it.
    EXPECT_EQ(retry_after("Sat, 05 Dec 2026 12:00:60 GMT"), milliseconds{60'000});
    // The weekday is not checked against the date.
    EXPECT_EQ(retry_after("Mon, 05 Dec 2026 12:01:00 GMT"), milliseconds{60'000});
}

TEST(PushRetryAfter, RoundsAWaitUpToTheMillisecond) {
    const auto now = kNow + std::chrono::microseconds{250'500};
    EXPECT_EQ(retry_after("Sat, 05 Dec 2026 12:01:00 GMT", now), milliseconds{59'750});
}

TEST(PushRetryAfter, APastDateIsNoWait) {
    EXPECT_EQ(retry_after("Sat, 05 Dec 2026 12:00:00 GMT"), milliseconds{0});
    EXPECT_EQ(retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), milliseconds{0});
}

// Found by push_fuzz: a year outside system_clock's 1677..2262 overflowed its nanoseconds.
TEST(PushRetryAfter, ReadsYearsSystemClockCannotHold) {
    EXPECT_EQ(retry_after("Sun, 06 Nov 0997 08:49:37 GMT"), milliseconds{0});
    EXPECT_EQ(retry_after("Sat, 01 Jan 0000 00:00:00 GMT"), milliseconds{0});
    EXPECT_EQ(retry_after("Fri, 31 Dec 9999 23:59:59 GMT"), kMaxRetryAfter);
    EXPECT_EQ(retry_after("Fri Dec 31 23:59:59 9999"), kMaxRetryAfter);
}

TEST(PushRetryAfter, ReadsAnRfc850Date) {
    EXPECT_EQ(retry_after("Saturday, 05-Dec-26 12:01:00 GMT"), milliseconds{60'000});
    EXPECT_EQ(retry_after("Sunday, 06-Nov-94 08:49:37 GMT"), milliseconds{0});
    // A two-digit year more than 50 years ahead is the last one in the past: 2076 is ahead,
    // 2077 means 1977.
    EXPECT_EQ(retry_after("Saturday, 05-Dec-76 12:00:00 GMT"), kMaxRetryAfter);
    EXPECT_EQ(retry_after("Sunday, 05-Dec-77 12:00:00 GMT"), milliseconds{0});
}

TEST(PushRetryAfter, ReadsAnAsctimeDate) {
    EXPECT_EQ(retry_after("Sat Dec  5 12:01:00 2026"), milliseconds{60'000});
    EXPECT_EQ(retry_after("Sat Dec 05 12:01:00 2026"), milliseconds{60'000});
    EXPECT_EQ(retry_after("Sun Nov  6 08:49:37 1994"), milliseconds{0});
}

}  // namespace
}  // namespace delayq::push
