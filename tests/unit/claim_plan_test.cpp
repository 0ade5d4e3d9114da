// What one claim of a schedule sends (plan_claim), above all for a schedule left unclaimed past
// the walk's bound (kMissedScanLimit occurrences): catch-up `one` and `all` still send the
// newest missed occurrences, as CatchUp promises. The expected instants are arithmetic on the
// interval, or read off a calendar for the cron: never from Recurrence.
#include "schedule/claim_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "delayq/limits.hpp"
#include "delayq/schedules.hpp"
#include "delayq/time.hpp"
#include "schedule/recurrence.hpp"

namespace delayq {
namespace {

using namespace std::chrono_literals;
using Instants = std::vector<std::string>;

// Every 7 s from a start that is itself an occurrence, so occurrence k is at kT0 + k * 7 s.
const TimePoint kT0 = parse_time("2024-01-01T00:00:00Z");
constexpr Duration kStep = 7s;

ScheduleSpec every_seven(CatchUp catch_up) {
    ScheduleSpec spec;
    spec.every = kStep;
    spec.start = kT0;
    spec.overlap = Overlap::kSkip;
    spec.catch_up = catch_up;
    return spec;
}

TimePoint occurrence(std::int64_t k) { return kT0 + k * kStep; }

Instants texts(const std::vector<TimePoint>& instants) {
    Instants out;
    for (const TimePoint t : instants) out.push_back(format_time(t));
    return out;
}

// Occurrences first..last of the 7 s schedule.
Instants occurrences(std::int64_t first, std::int64_t last) {
    Instants out;
    for (std::int64_t k = first; k <= last; ++k) out.push_back(format_time(occurrence(k)));
    return out;
}

// A claim at 6 s past occurrence `last`: the grace (5 s) leaves it missed, and the next one is
// 1 s past the claim, so the claim sends missed occurrences only.
detail::ClaimPlan claim_seven(CatchUp catch_up, std::int64_t last) {
    const ScheduleSpec spec = every_seven(catch_up);
    const auto recurrence = detail::Recurrence::make(spec, TimePoint{});
    return detail::plan_claim(recurrence, spec, kT0, occurrence(last) + 6s);
}

TEST(ClaimPlan, WithinTheWalkAllSendsTheNewestAndCountsTheRest) {
    const detail::ClaimPlan plan = claim_seven(CatchUp::kAll, 149);
    EXPECT_EQ(texts(plan.instants), occurrences(50, 149));
    EXPECT_EQ(plan.missed, 50u);
    EXPECT_EQ(plan.then, occurrence(150));
}

TEST(ClaimPlan, IntervalPastTheScanLimitOneSendsTheNewestMissed) {
    // 3,000,001 missed: three times the walk's bound.
    const detail::ClaimPlan plan = claim_seven(CatchUp::kOne, 3'000'000);
    EXPECT_EQ(texts(plan.instants), occurrences(3'000'000, 3'000'000));
    // What the walk passed over is counted; what the claim jumped over is not.
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_EQ(plan.then, occurrence(3'000'001));
}

TEST(ClaimPlan, IntervalPastTheScanLimitAllSendsTheNewestMissed) {
    const detail::ClaimPlan plan = claim_seven(CatchUp::kAll, 3'000'000);
    EXPECT_EQ(texts(plan.instants), occurrences(3'000'000 - 99, 3'000'000));
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_EQ(plan.then, occurrence(3'000'001));
}

TEST(ClaimPlan, IntervalJustPastTheScanLimitAllSendsTheNewestAndCountsExactly) {
    // 30 missed occurrences past the bound: the newest 100 straddle it, and nothing is jumped
    // over, so every occurrence not sent is counted.
    const auto last = static_cast<std::int64_t>(detail::kMissedScanLimit) + 29;
    const detail::ClaimPlan plan = claim_seven(CatchUp::kAll, last);
    EXPECT_EQ(texts(plan.instants), occurrences(last - 99, last));
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit + 30 - kMaxCatchUp);
    EXPECT_EQ(plan.then, occurrence(last + 1));
}

TEST(ClaimPlan, PastTheScanLimitTheNewestMissedAreThoseBeforeTheEnd) {
    ScheduleSpec spec = every_seven(CatchUp::kAll);
    spec.end = occurrence(2'000'000);
    const auto recurrence = detail::Recurrence::make(spec, TimePoint{});
    const detail::ClaimPlan plan =
        detail::plan_claim(recurrence, spec, kT0, occurrence(3'000'000) + 6s);
    EXPECT_EQ(texts(plan.instants), occurrences(2'000'000 - 99, 2'000'000));
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_FALSE(plan.then.has_value());
}

TEST(ClaimPlan, IntervalPastTheScanLimitNoneSendsNothing) {
    const detail::ClaimPlan plan = claim_seven(CatchUp::kNone, 3'000'000);
    EXPECT_EQ(texts(plan.instants), Instants{});
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_EQ(plan.then, occurrence(3'000'001));
}

// Each second of 09:00-16:59 UTC on weekdays: 28,800 a day, unevenly spread, so the newest
// missed ones lie past a night or a weekend. From Monday 2024-01-01 to Friday 2024-03-08 there
// are 50 weekdays (python3's datetime), 1,440,000 occurrences.
ScheduleSpec office_seconds(CatchUp catch_up) {
    ScheduleSpec spec;
    spec.cron = "* * 9-16 * * MON-FRI";
    spec.overlap = Overlap::kSkip;
    spec.catch_up = catch_up;
    return spec;
}

detail::ClaimPlan claim_office(CatchUp catch_up, std::string_view now) {
    const ScheduleSpec spec = office_seconds(catch_up);
    const auto recurrence = detail::Recurrence::make(spec, TimePoint{});
    return detail::plan_claim(recurrence, spec, parse_time("2024-01-01T09:00:00Z"),
                              parse_time(now));
}

// `count` consecutive seconds from `first`.
Instants seconds_from(std::string_view first, int count) {
    Instants out;
    for (int i = 0; i < count; ++i) out.push_back(format_time(parse_time(first) + i * 1s));
    return out;
}

TEST(ClaimPlan, CronPastTheScanLimitOneSendsTheNewestMissed) {
    // Sunday: the newest missed occurrence is Friday's last second.
    const detail::ClaimPlan plan = claim_office(CatchUp::kOne, "2024-03-10T12:00:00Z");
    EXPECT_EQ(texts(plan.instants), Instants{"2024-03-08T16:59:59.000Z"});
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_EQ(plan.then, parse_time("2024-03-11T09:00:00Z"));
}

TEST(ClaimPlan, CronPastTheScanLimitAllSendsTheNewestMissedAcrossAWeekend) {
    // Monday 09:00:30: missed are those before 09:00:25, so the newest 100 are Friday's last 75
    // seconds and Monday's first 25; 09:00:25 to 09:00:30 are late within the grace.
    const detail::ClaimPlan plan = claim_office(CatchUp::kAll, "2024-03-11T09:00:30Z");
    Instants expected = seconds_from("2024-03-08T16:58:45Z", 75);
    for (const std::string& t : seconds_from("2024-03-11T09:00:00Z", 31)) expected.push_back(t);
    EXPECT_EQ(texts(plan.instants), expected);
    EXPECT_EQ(plan.missed, detail::kMissedScanLimit);
    EXPECT_EQ(plan.then, parse_time("2024-03-11T09:00:31Z"));
}

}  // namespace
}  // namespace delayq
