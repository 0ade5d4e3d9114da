// The occurrences of schedules: cron in several zones across the 2024 daylight-saving changes,
// intervals, start and end, and the validation of a whole spec. The expected instants come from
// python3's zoneinfo (scanning each minute's local time) and, for the skipped hours, from the
// transitions it reports: never from this code.
#include "schedule/recurrence.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "delayq/schedules.hpp"
#include "delayq/time.hpp"

namespace delayq {
namespace {

using Texts = std::vector<std::string>;
using namespace std::chrono_literals;

ScheduleSpec cron(std::string expr, std::string tz = "UTC") {
    ScheduleSpec spec;
    spec.cron = std::move(expr);
    spec.tz = std::move(tz);
    return spec;
}

ScheduleSpec every(Duration d) {
    ScheduleSpec spec;
    spec.every = d;
    return spec;
}

Texts next(const ScheduleSpec& spec, std::string_view from, std::size_t n,
           TimePoint anchor = TimePoint{}) {
    Texts out;
    for (TimePoint t : next_occurrences(spec, parse_time(from), n, anchor)) {
        out.push_back(format_time(t));
    }
    return out;
}

TEST(Recurrence, FixedTimesInZonesWithoutChanges) {
    EXPECT_EQ(next(cron("0 9 * * MON-FRI"), "2024-06-07T10:00:00Z", 2),
              (Texts{"2024-06-10T09:00:00.000Z", "2024-06-11T09:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 9 * * *", "Asia/Kolkata"), "2024-06-01T00:00:00Z", 2),
              (Texts{"2024-06-01T03:30:00.000Z", "2024-06-02T03:30:00.000Z"}));
}

TEST(Recurrence, StrictlyAfter) {
    EXPECT_EQ(next(cron("0 9 * * *"), "2024-06-07T09:00:00Z", 1),
              (Texts{"2024-06-08T09:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 9 * * *"), "2024-06-07T08:59:59.999Z", 1),
              (Texts{"2024-06-07T09:00:00.000Z"}));
}

TEST(Recurrence, FixedTimeInTheSkippedHourRunsOnceAfterTheGap) {
    // Berlin 2024-03-31 02:00 CET -> 03:00 CEST at 01:00Z.
    EXPECT_EQ(next(cron("30 2 * * *", "Europe/Berlin"), "2024-03-30T12:00:00Z", 2),
              (Texts{"2024-03-31T01:00:00.000Z", "2024-04-01T00:30:00.000Z"}));
    // Two times in the gap and one at its end are one run.
    EXPECT_EQ(next(cron("0,30 2,3 * * *", "Europe/Berlin"), "2024-03-31T00:00:00Z", 2),
              (Texts{"2024-03-31T01:00:00.000Z", "2024-03-31T01:30:00.000Z"}));
    // New York 2024-03-10 02:00 EST -> 03:00 EDT at 07:00Z.
    EXPECT_EQ(next(cron("30 2 * * *", "America/New_York"), "2024-03-09T12:00:00Z", 2),
              (Texts{"2024-03-10T07:00:00.000Z", "2024-03-11T06:30:00.000Z"}));
    // Just before the gap.
    EXPECT_EQ(next(cron("30 2 * * *", "Europe/Berlin"), "2024-03-31T00:59:59.999Z", 1),
              (Texts{"2024-03-31T01:00:00.000Z"}));
}

TEST(Recurrence, FixedTimeInTheRepeatedHourRunsOnce) {
    // Berlin 2024-10-27 03:00 CEST -> 02:00 CET at 01:00Z: 02:30 is 00:30Z and 01:30Z.
    EXPECT_EQ(next(cron("30 2 * * *", "Europe/Berlin"), "2024-10-26T12:00:00Z", 2),
              (Texts{"2024-10-27T00:30:00.000Z", "2024-10-28T01:30:00.000Z"}));
    // From inside the second instance, the day's run is already past.
    EXPECT_EQ(next(cron("30 2 * * *", "Europe/Berlin"), "2024-10-27T01:15:00Z", 1),
              (Texts{"2024-10-28T01:30:00.000Z"}));
    // New York 2024-11-03 02:00 EDT -> 01:00 EST at 06:00Z: 01:30 is 05:30Z and 06:30Z.
    EXPECT_EQ(next(cron("30 1 * * *", "America/New_York"), "2024-11-02T12:00:00Z", 2),
              (Texts{"2024-11-03T05:30:00.000Z", "2024-11-04T06:30:00.000Z"}));
}

TEST(Recurrence, WildcardHoursFollowElapsedTimeAcrossTheChanges) {
    EXPECT_EQ(
        next(cron("*/30 * * * *", "Europe/Berlin"), "2024-10-26T23:45:00Z", 5),
        (Texts{"2024-10-27T00:00:00.000Z", "2024-10-27T00:30:00.000Z", "2024-10-27T01:00:00.000Z",
               "2024-10-27T01:30:00.000Z", "2024-10-27T02:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 * * * *", "Europe/Berlin"), "2024-03-30T23:30:00Z", 3),
              (Texts{"2024-03-31T00:00:00.000Z", "2024-03-31T01:00:00.000Z",
                     "2024-03-31T02:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 * * * *", "America/New_York"), "2024-11-03T04:30:00Z", 3),
              (Texts{"2024-11-03T05:00:00.000Z", "2024-11-03T06:00:00.000Z",
                     "2024-11-03T07:00:00.000Z"}));
    EXPECT_EQ(
        next(cron("*/30 * * * *", "America/New_York"), "2024-03-10T05:45:00Z", 5),
        (Texts{"2024-03-10T06:00:00.000Z", "2024-03-10T06:30:00.000Z", "2024-03-10T07:00:00.000Z",
               "2024-03-10T07:30:00.000Z", "2024-03-10T08:00:00.000Z"}));
    // Steps of hours too: 02:00 CEST and 02:00 CET both run, 04:00 CET next.
    EXPECT_EQ(next(cron("0 */2 * * *", "Europe/Berlin"), "2024-10-26T23:00:00Z", 3),
              (Texts{"2024-10-27T00:00:00.000Z", "2024-10-27T01:00:00.000Z",
                     "2024-10-27T03:00:00.000Z"}));
}

TEST(Recurrence, LordHoweShiftsByHalfAnHour) {
    // 2024-04-07 02:00 +11 -> 01:30 +10:30 at 2024-04-06T15:00Z.
    EXPECT_EQ(
        next(cron("*/30 * * * *", "Australia/Lord_Howe"), "2024-04-06T13:50:00Z", 5),
        (Texts{"2024-04-06T14:00:00.000Z", "2024-04-06T14:30:00.000Z", "2024-04-06T15:00:00.000Z",
               "2024-04-06T15:30:00.000Z", "2024-04-06T16:00:00.000Z"}));
    EXPECT_EQ(next(cron("45 1 * * *", "Australia/Lord_Howe"), "2024-04-06T00:00:00Z", 2),
              (Texts{"2024-04-06T14:45:00.000Z", "2024-04-07T15:15:00.000Z"}));
    // 2024-10-06 02:00 +10:30 -> 02:30 +11 at 2024-10-05T15:30Z.
    EXPECT_EQ(next(cron("15 2 * * *", "Australia/Lord_Howe"), "2024-10-05T12:00:00Z", 2),
              (Texts{"2024-10-05T15:30:00.000Z", "2024-10-06T15:15:00.000Z"}));
    EXPECT_EQ(next(cron("*/30 * * * *", "Australia/Lord_Howe"), "2024-10-05T14:50:00Z", 3),
              (Texts{"2024-10-05T15:00:00.000Z", "2024-10-05T15:30:00.000Z",
                     "2024-10-05T16:00:00.000Z"}));
}

TEST(Recurrence, ZonesKeepTheirRulesAfter2037) {
    // tzdata's files list transitions to 2037; later ones come from the rule at their end.
    EXPECT_EQ(next(cron("0 12 1 7 *", "America/New_York"), "2040-01-01T00:00:00Z", 1),
              (Texts{"2040-07-01T16:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 9 1 7 *", "Europe/Berlin"), "2100-01-01T00:00:00Z", 1),
              (Texts{"2100-07-01T07:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 12 1 1,7 *", "Australia/Lord_Howe"), "2040-06-01T00:00:00Z", 2),
              (Texts{"2040-07-01T01:30:00.000Z", "2041-01-01T01:00:00.000Z"}));
    // New York 2040-03-11 02:00 EST -> 03:00 EDT at 07:00Z, 2040-11-04 at 06:00Z back.
    EXPECT_EQ(next(cron("30 2 * * *", "America/New_York"), "2040-03-10T12:00:00Z", 2),
              (Texts{"2040-03-11T07:00:00.000Z", "2040-03-12T06:30:00.000Z"}));
    EXPECT_EQ(next(cron("0 * * * *", "America/New_York"), "2040-11-04T04:30:00Z", 3),
              (Texts{"2040-11-04T05:00:00.000Z", "2040-11-04T06:00:00.000Z",
                     "2040-11-04T07:00:00.000Z"}));
    EXPECT_EQ(next(cron("30 1 * * *", "America/New_York"), "2040-11-03T12:00:00Z", 2),
              (Texts{"2040-11-04T05:30:00.000Z", "2040-11-05T06:30:00.000Z"}));
    // Lord Howe 2100-10-03 02:00 +10:30 -> 02:30 +11 at 2100-10-02T15:30Z.
    EXPECT_EQ(next(cron("15 2 * * *", "Australia/Lord_Howe"), "2100-10-02T12:00:00Z", 2),
              (Texts{"2100-10-02T15:30:00.000Z", "2100-10-03T15:15:00.000Z"}));
}

TEST(Recurrence, LeapDaysAndBothDayFields) {
    EXPECT_EQ(next(cron("0 0 29 2 *"), "2025-01-01T00:00:00Z", 2),
              (Texts{"2028-02-29T00:00:00.000Z", "2032-02-29T00:00:00.000Z"}));
    EXPECT_EQ(next(cron("0 0 13 * FRI"), "2024-10-11T00:00:00Z", 3),
              (Texts{"2024-10-13T00:00:00.000Z", "2024-10-18T00:00:00.000Z",
                     "2024-10-25T00:00:00.000Z"}));
}

TEST(Recurrence, StartAndEndBoundCron) {
    ScheduleSpec spec = cron("0 12 * * *");
    spec.start = parse_time("2024-06-10T12:00:00Z");
    spec.end = parse_time("2024-06-12T12:00:00Z");
    // Start is an occurrence when it matches; end is inclusive.
    EXPECT_EQ(next(spec, "2024-01-01T00:00:00Z", 5),
              (Texts{"2024-06-10T12:00:00.000Z", "2024-06-11T12:00:00.000Z",
                     "2024-06-12T12:00:00.000Z"}));
    const auto r = detail::Recurrence::make(spec, TimePoint{});
    EXPECT_FALSE(r.after(parse_time("2024-06-12T12:00:00Z")).has_value());
}

TEST(Recurrence, EveryFromStartIncludesStart) {
    ScheduleSpec spec = every(90s);
    spec.start = parse_time("2024-01-01T00:00:00Z");
    EXPECT_EQ(next(spec, "2023-12-31T00:00:00Z", 2),
              (Texts{"2024-01-01T00:00:00.000Z", "2024-01-01T00:01:30.000Z"}));
    EXPECT_EQ(next(spec, "2024-01-01T00:01:30Z", 1), (Texts{"2024-01-01T00:03:00.000Z"}));
    EXPECT_EQ(next(spec, "2024-01-01T00:01:29.999Z", 1), (Texts{"2024-01-01T00:01:30.000Z"}));
    // The anchor argument is ignored when start is set.
    EXPECT_EQ(next(spec, "2023-12-31T00:00:00Z", 1, parse_time("2024-01-01T00:00:07Z")),
              (Texts{"2024-01-01T00:00:00.000Z"}));
}

TEST(Recurrence, EveryFromTheAnchorExcludesTheAnchor) {
    const TimePoint anchor = parse_time("2024-01-01T00:00:00.250Z");
    EXPECT_EQ(next(every(1s), "2023-01-01T00:00:00Z", 2, anchor),
              (Texts{"2024-01-01T00:00:01.250Z", "2024-01-01T00:00:02.250Z"}));
    EXPECT_EQ(next(every(1h), "2024-01-01T05:00:00.250Z", 1, anchor),
              (Texts{"2024-01-01T06:00:00.250Z"}));
}

TEST(Recurrence, EveryEndsAtEndAndAtTheYear9999) {
    ScheduleSpec spec = every(10s);
    spec.start = parse_time("2024-01-01T00:00:00Z");
    spec.end = parse_time("2024-01-01T00:00:20Z");
    EXPECT_EQ(next(spec, "2024-01-01T00:00:00Z", 5),
              (Texts{"2024-01-01T00:00:10.000Z", "2024-01-01T00:00:20.000Z"}));
    spec.end.reset();
    EXPECT_EQ(next(spec, "9999-12-31T23:59:45Z", 5), (Texts{"9999-12-31T23:59:50.000Z"}));
    const auto r = detail::Recurrence::make(spec, TimePoint{});
    EXPECT_FALSE(r.after(TimePoint{Duration{kMaxTimeMs}}).has_value());
    EXPECT_FALSE(r.after(TimePoint::max()).has_value());
}

TEST(Recurrence, CronEndsAtTheYear9999) {
    EXPECT_EQ(next(cron("59 23 31 12 *"), "9999-12-31T00:00:00Z", 2),
              (Texts{"9999-12-31T23:59:00.000Z"}));
    // 23:59 in New York on the last day is already the year 10000 in UTC.
    EXPECT_EQ(next(cron("59 23 31 12 *", "America/New_York"), "9999-12-31T00:00:00Z", 2), Texts{});
}

TEST(Recurrence, OneAfterCostsMicroseconds) {
    const auto r = detail::Recurrence::make(cron("0 0 29 2 *", "Europe/Berlin"), TimePoint{});
    TimePoint t = parse_time("2001-01-01T00:00:00Z");
    const auto began = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) t = r.after(t).value();
    EXPECT_LT(std::chrono::steady_clock::now() - began, 1s);
    // The 200th leap day from 2001 is in 2824 (python3's calendar.isleap); CET then.
    EXPECT_EQ(format_time(t), "2824-02-28T23:00:00.000Z");
}

std::string error_of(const ScheduleSpec& spec, std::size_t max_payload = kDefaultMaxPayloadBytes) {
    try {
        validate_schedule(spec, max_payload);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "no error";
}

TEST(Recurrence, BadSpecsSayWhichFieldAndWhy) {
    std::vector<std::pair<ScheduleSpec, std::string>> cases;
    cases.emplace_back(cron("0 9 * * *", "Mars/Base"), "tz: unknown time zone \"Mars/Base\"");
    cases.emplace_back(cron("0 9 * * *", ""), "tz: unknown time zone \"\"");
    cases.emplace_back(cron("61 * * * *"), "cron: minute field \"61\" is out of range 0-59");
    cases.emplace_back(every(500ms), "every: 500ms is under the minimum of 1s");
    cases.emplace_back(every(-1s), "every: -1s is under the minimum of 1s");
    ScheduleSpec spec = every(1min);
    spec.tz = "Europe/Berlin";
    cases.emplace_back(spec, "tz: \"Europe/Berlin\" does not go with every");
    spec = cron("0 9 * * *");
    spec.every = 1min;
    cases.emplace_back(spec, "every: must not be set with cron");
    cases.emplace_back(ScheduleSpec{}, "cron: a schedule needs cron or every");
    spec = every(1min);
    spec.start = parse_time("2024-06-02T00:00:00Z");
    spec.end = parse_time("2024-06-01T00:00:00Z");
    cases.emplace_back(spec,
                       "end: 2024-06-01T00:00:00.000Z is before start 2024-06-02T00:00:00.000Z");
    spec = every(1min);
    spec.start = TimePoint{Duration{-5}};
    cases.emplace_back(spec, "start: ");
    spec = every(1min);
    spec.payload.assign(2'000'000, 'x');
    cases.emplace_back(spec, "payload: 2000000 bytes is over the limit of 1048576");
    spec = every(1min);
    spec.max_attempts = kMaxAttempts + 1;
    cases.emplace_back(spec, "max_attempts: must be from 1 to");
    spec.max_attempts = -1;
    cases.emplace_back(spec, "max_attempts: ");
    spec = every(1min);
    spec.expire_after = -1s;
    cases.emplace_back(spec, "expire_after: ");
    spec.expire_after = Duration{kMaxTimeMs};
    cases.emplace_back(spec, "expire_after: ");
    spec = every(1min);
    spec.max_runs = kMaxScheduleRuns + 1;
    cases.emplace_back(spec, "max_runs: must be at most");
    for (const auto& [bad, fragment] : cases) {
        const std::string error = error_of(bad);
        EXPECT_NE(error.find(fragment), std::string::npos)
            << "got: " << error << "\nexpected: " << fragment;
    }
}

TEST(Recurrence, GoodSpecsPass) {
    EXPECT_EQ(error_of(cron("0 9 * * *", "Australia/Lord_Howe")), "no error");
    ScheduleSpec spec = every(1s);
    spec.payload.assign(100, 'x');
    spec.max_attempts = kMaxAttempts;
    spec.max_runs = kMaxScheduleRuns;
    spec.expire_after = 1h;
    spec.start = parse_time("2024-06-01T00:00:00Z");
    spec.end = spec.start;
    EXPECT_EQ(error_of(spec), "no error");
    // The queue's own limit decides the payload.
    spec.payload.assign(2'000'000, 'x');
    EXPECT_EQ(error_of(spec, 4'000'000), "no error");
}

TEST(Recurrence, ScheduleNames) {
    EXPECT_NO_THROW(validate_schedule_name("nightly-report:v2"));
    EXPECT_NO_THROW(validate_schedule_name(std::string(kMaxScheduleNameBytes, 'n')));
    const auto error = [](std::string_view name) {
        try {
            validate_schedule_name(name);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error(""), "schedule name must not be empty");
    EXPECT_NE(error(std::string(kMaxScheduleNameBytes + 1, 'n')).find("over the limit of 150"),
              std::string::npos);
    EXPECT_NE(error("a b").find("must not contain spaces"), std::string::npos);
    EXPECT_NE(error("a{b}").find("braces"), std::string::npos);
    EXPECT_NE(error("a\x7f").find("printable ASCII"), std::string::npos);
}

TEST(Recurrence, MessageIds) {
    EXPECT_EQ(schedule_message_id("nightly", parse_time("2024-06-01T00:00:00.250Z")),
              "schedule:nightly:1717200000250");
}

}  // namespace
}  // namespace delayq
