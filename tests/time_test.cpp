// The grammar of durations and times (delayq/time.hpp): what it reads, what it refuses and with
// which message, and that formatting writes what parsing reads back.
#include "delayq/time.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "delayq/error.hpp"

namespace delayq {
namespace {

using namespace std::chrono;
using namespace std::chrono_literals;

// 9999-12-31T23:59:59.999Z: the latest time delayq accepts.
constexpr std::int64_t kMaxMs = 253'402'300'799'999;

const std::string kDurationForm =
    "expected integer milliseconds or whole numbers with units, largest first and each at most "
    "once (d, h, m, s, ms), e.g. 1500, 250ms, 30s, 1h30m or 7d";
const std::string kTimeForm =
    "expected RFC 3339 (e.g. 2030-01-02T03:04:05Z or 2030-01-02T05:04:05.250+02:00) or unix "
    "milliseconds (e.g. 1893553445000)";
const std::string kTooLong =
    "is too long (at most 2932896d23h59m59s999ms, which reaches the end of the year 9999)";

// Unix milliseconds of a UTC date and time, computed apart from the parser.
std::int64_t utc_ms(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0, int ms = 0) {
    const sys_days day{year{y} / month{mo} / d};
    return duration_cast<milliseconds>(day.time_since_epoch() + hours(h) + minutes(mi) +
                                       seconds(s) + milliseconds(ms))
        .count();
}

struct Accepted {
    std::string text;
    std::int64_t ms;
};

struct Refused {
    std::string text;
    std::string why;  // the message after `invalid duration "<text>": `
};

// The whole message of the InvalidArgument `parse` throws; fails the test when none is thrown.
template <typename Parse>
std::string refusal(Parse parse, const std::string& text) {
    try {
        parse(text);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    ADD_FAILURE() << "accepted \"" << text << "\"";
    return "";
}

TEST(DurationGrammarTest, AcceptsMillisecondsAndUnitsLargestFirst) {
    const std::vector<Accepted> cases = {
        {"0", 0},
        {"00", 0},
        {"1500", 1500},
        {"0ms", 0},
        {"250ms", 250},
        {"30s", 30'000},
        {"5m", 300'000},
        {"2h", 7'200'000},
        {"7d", 604'800'000},
        {"1h30m", 5'400'000},
        {"1d2h3m4s5ms", 93'784'005},
        {"1m0s500ms", 60'500},
        {"007s", 7000},
        {"90m", 5'400'000},  // a unit may exceed the next larger one
        {"1d25h", 176'400'000},
        {"253402300799999", kMaxMs},
        {"253402300799999ms", kMaxMs},
        {"2932896d23h59m59s999ms", kMaxMs},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(parse_duration(c.text), Duration(c.ms)) << c.text;
    }
}

TEST(DurationGrammarTest, RefusesWithAMessageNamingTextAndProblem) {
    const std::vector<Refused> cases = {
        {"", "empty; " + kDurationForm},
        {"-5s", "must not be negative"},
        {"-0", "must not be negative"},
        {"-9223372036854775808ms", "must not be negative"},
        {"1d1d", "unit \"d\" appears twice"},
        {"1h2m1h", "unit \"h\" appears twice"},
        {"1ms1ms", "unit \"ms\" appears twice"},
        {"30m1h",
         "unit \"h\" comes after a smaller one: give units largest first (d, h, m, s, ms)"},
        {"1ms1s",
         "unit \"s\" comes after a smaller one: give units largest first (d, h, m, s, ms)"},
        {"5s1m", "unit \"m\" comes after a smaller one: give units largest first (d, h, m, s, ms)"},
        {"5x", "unknown unit \"x\" (units: d, h, m, s, ms)"},
        {"5S", "unknown unit \"S\" (units: d, h, m, s, ms)"},
        {"5sec", "unknown unit \"sec\" (units: d, h, m, s, ms)"},
        {"5us", "unknown unit \"us\" (units: d, h, m, s, ms)"},
        {"1.5s", "numbers must be whole: use a smaller unit (1s500ms, not 1.5s)"},
        {"1h30", "\"30\" has no unit (d, h, m, s, ms)"},
        {"nan", kDurationForm},
        {"inf", kDurationForm},
        {"ms", kDurationForm},
        {"h5", kDurationForm},
        {"+5s", kDurationForm},
        {" 5s", kDurationForm},
        {"5s ", kDurationForm},
        {"1h 30m", kDurationForm},
        {"5_000", kDurationForm},
        {"5e3", "unknown unit \"e\" (units: d, h, m, s, ms)"},
        {"253402300800000", kTooLong},
        {"253402300800000ms", kTooLong},
        {"99999999999999999999", kTooLong},
        {"99999999999999999999ms", kTooLong},
        {"106751991167301d", kTooLong},  // overflows int64 once multiplied by its unit
        {"2932897d", kTooLong},
        {"2932896d24h", kTooLong},  // each term fits, the sum does not
    };
    for (const auto& c : cases) {
        EXPECT_EQ(refusal(parse_duration, c.text), "invalid duration \"" + c.text + "\": " + c.why);
    }
}

TEST(DurationGrammarTest, MessagesShowControlBytesEscapedAndLongTextCut) {
    EXPECT_EQ(refusal(parse_duration, std::string("5s\n")),
              "invalid duration \"5s\\x0a\": " + kDurationForm);
    EXPECT_EQ(refusal(parse_duration, std::string("\"5s\"")),
              "invalid duration \"\\\"5s\\\"\": " + kDurationForm);
    EXPECT_EQ(refusal(parse_duration, std::string(100, 'x')),
              "invalid duration \"" + std::string(64, 'x') + "...\": " + kDurationForm);
}

TEST(TimeGrammarTest, AcceptsRfc3339WithOffsetAndUnixMilliseconds) {
    const std::vector<Accepted> cases = {
        {"0", 0},
        {"1893553445000", 1'893'553'445'000},
        {"253402300799999", kMaxMs},
        {"1970-01-01T00:00:00Z", 0},
        {"2030-01-02T03:04:05Z", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2030-01-02T03:04:05.678Z", utc_ms(2030, 1, 2, 3, 4, 5, 678)},
        {"2030-01-02T03:04:05.1Z", utc_ms(2030, 1, 2, 3, 4, 5, 100)},
        {"2030-01-02T03:04:05.123456789Z", utc_ms(2030, 1, 2, 3, 4, 5, 123)},  // cut, not rounded
        {"2030-01-02T05:04:05.250+02:00", utc_ms(2030, 1, 2, 3, 4, 5, 250)},
        {"2030-01-01T23:04:05-04:00", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2030-01-02T03:04:05-00:00", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2030-01-02T08:34:05+05:30", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2030-01-02t03:04:05z", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2030-01-02 03:04:05Z", utc_ms(2030, 1, 2, 3, 4, 5)},
        {"2028-02-29T00:00:00Z", utc_ms(2028, 2, 29)},
        {"2016-12-31T23:59:60Z", utc_ms(2017, 1, 1)},  // a leap second: the next second
        {"1970-01-01T01:00:00+01:00", 0},
        {"9999-12-31T23:59:59.999Z", kMaxMs},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(parse_time(c.text).time_since_epoch().count(), c.ms) << c.text;
    }
}

TEST(TimeGrammarTest, RefusesWithAMessageNamingTextAndProblem) {
    const std::vector<Refused> cases = {
        {"", "empty; " + kTimeForm},
        {"-1", "is before 1970"},
        {"-1000", "is before 1970"},
        {"0000-01-01T00:00:00Z", "is before 1970"},
        {"1969-12-31T23:59:59.999Z", "is before 1970"},
        {"1970-01-01T00:30:00+01:00", "is before 1970"},
        {"253402300800000", "is after the year 9999"},
        {"99999999999999999999", "is after the year 9999"},
        {"9999-12-31T23:59:59.999-01:00", "is after the year 9999"},
        {"9999-12-31T23:59:60Z", "is after the year 9999"},
        {"10000-01-01T00:00:00Z", "is after the year 9999"},
        {"2030-13-01T00:00:00Z", "no such date"},
        {"2030-00-01T00:00:00Z", "no such date"},
        {"2030-02-29T00:00:00Z", "no such date"},
        {"2030-04-31T00:00:00Z", "no such date"},
        {"2030-01-02T24:00:00Z", "no such time of day"},
        {"2030-01-02T23:60:00Z", "no such time of day"},
        {"2030-01-02T23:59:61Z", "no such time of day"},
        {"2030-01-02T03:04:05", "has no offset: add Z for UTC or one like +02:00"},
        {"2030-01-02T03:04:05.5", "has no offset: add Z for UTC or one like +02:00"},
        {"2030-01-02T03:04:05.Z", "no digits after the decimal point"},
        {"2030-01-02T03:04:05+24:00", "no such offset"},
        {"2030-01-02T03:04:05+02:60", "no such offset"},
        {"2030-01-02T03:04:05+2:00", kTimeForm},
        {"2030-01-02T03:04:05+0200", kTimeForm},
        {"2030-01-02T03:04:05Zjunk", kTimeForm},
        {"2030-01-02T03:04:05 Z", kTimeForm},
        {"2030-01-02", kTimeForm},
        {"2030-1-2T03:04:05Z", kTimeForm},
        {"2030-01-02X03:04:05Z", kTimeForm},
        {"tomorrow", kTimeForm},
        {"inf", kTimeForm},
        {"+1000", kTimeForm},
        {"1.5", kTimeForm},
        {" 1000", kTimeForm},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(refusal(parse_time, c.text), "invalid time \"" + c.text + "\": " + c.why);
    }
}

TEST(DurationFormatTest, WritesTheExactDurationInTheGrammar) {
    const std::vector<std::pair<Duration, std::string>> cases = {
        {0ms, "0ms"},
        {250ms, "250ms"},
        {1500ms, "1s500ms"},
        {90s, "1m30s"},
        {5400s, "1h30m"},
        {7 * 24h, "7d"},
        {Duration(93'784'005), "1d2h3m4s5ms"},
        {Duration(kMaxMs), "2932896d23h59m59s999ms"},
        {-1500ms, "-1s500ms"},
        {Duration::max(), "106751991167d7h12m55s807ms"},
        {Duration::min(), "-106751991167d7h12m55s808ms"},
    };
    for (const auto& [d, text] : cases) {
        EXPECT_EQ(format_duration(d), text) << d.count();
        if (d.count() >= 0 && d.count() <= kMaxMs) {
            EXPECT_EQ(parse_duration(text), d) << text;
        }
    }
}

TEST(TimeFormatTest, WritesRfc3339InUtcThatParsesBack) {
    const std::vector<std::pair<std::int64_t, std::string>> cases = {
        {0, "1970-01-01T00:00:00.000Z"},
        {utc_ms(2030, 1, 2, 3, 4, 5, 678), "2030-01-02T03:04:05.678Z"},
        {utc_ms(2028, 2, 29, 23, 59, 59, 1), "2028-02-29T23:59:59.001Z"},
        {kMaxMs, "9999-12-31T23:59:59.999Z"},
    };
    for (const auto& [ms, text] : cases) {
        EXPECT_EQ(format_time(TimePoint(Duration(ms))), text) << ms;
        EXPECT_EQ(parse_time(text).time_since_epoch().count(), ms) << text;
    }
}

}  // namespace
}  // namespace delayq
