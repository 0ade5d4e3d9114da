#pragma once

#include <delayq/schedules.hpp>
#include <span>
#include <string>

#include "json/fields.hpp"

// The JSON shapes of recurring schedules (docs/json.md, Schedules): `delayq schedule ... --json`
// and the service's schedule routes write and read these, so that they cannot disagree on a
// field.
namespace delayq::json {

// {"cron" | "every_ms", "tz", "payload" | "payload_base64", "max_attempts", "expire_after_ms",
// "start_ms", "end_ms" (null when unset), "max_runs", "overlap", "catch_up"}
Json schedule_spec_json(const ScheduleSpec& spec);

// {"queue", "name", "spec": schedule_spec_json, "paused", "anchor_ms", "created_ms",
// "updated_ms", "next_ms", "last_fired_ms" (null when none), "last_id", "last_outcome",
// "last_dead_reason", "runs", "missed", "skipped"}
Json schedule_json(const std::string& queue, const ScheduleInfo& info);

// {"schedules": [schedule_json...], "next_cursor": "..." or null on the last page}
Json schedule_page_json(const std::string& queue, const SchedulePage& page);

// {"status": "created" | "updated" | "unchanged" | "exists", "next_ms"}
Json put_result_json(const PutResult& result);

// {"occurrences": [{"ms", "time"}...]} (time in RFC 3339, UTC)
Json occurrences_json(std::span<const TimePoint> occurrences);

// A spec from a request body: "cron" (with optional "tz") or "every" (a duration), and the
// optional "payload" | "payload_base64", "max_attempts", "expire_after", "start", "end",
// "max_runs", "overlap", "catch_up". Unknown fields are refused. Throws InvalidArgument
// naming the field; validate_schedule is the caller's (it knows the payload limit).
ScheduleSpec parse_schedule_spec(const Json& body);

}  // namespace delayq::json
