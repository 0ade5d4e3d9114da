#pragma once

#include <delayq/schedules.hpp>
#include <span>
#include <string>
#include <string_view>

namespace delayq::cli {

// How `delayq schedule` shows schedules to people (scripts take --json, common/json/schedule.hpp).

// `cron "30 2 * * *" Europe/Berlin` or `every 1h30m`.
std::string spec_phrase(const ScheduleSpec& spec);
// "active", "paused" or "ended" (no next occurrence: past its end or its max runs).
std::string state_word(const ScheduleInfo& info);

// The wall-clock time of `t` in `zone`, with its abbreviation and offset:
// "2024-03-31 03:00:00 CEST (+02:00)"; "" when the zone is unknown here.
std::string zone_time(TimePoint t, const std::string& zone);

// An instant for people: UTC, how far from now, and the wall-clock time in a zone other than
// UTC: "2024-03-31T01:00:00.000Z (in 5h2m), 2024-03-31 03:00:00 CEST (+02:00)".
std::string occurrence_text(TimePoint t, TimePoint now, const std::string& zone);

// A schedule's spec and state, one field a line.
void print_schedule(const std::string& queue, const ScheduleInfo& info, TimePoint now);

// One instant a line in UTC and, for a zone other than UTC, beside it in that zone: what a user
// checks a DST day with.
void print_occurrences(std::span<const TimePoint> occurrences, const std::string& zone);

}  // namespace delayq::cli
