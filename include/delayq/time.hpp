#pragma once

// Durations and times as text: one grammar for every front end (the CLI, the HTTP service), so
// that "1h30m" or "2030-01-02T03:04:05Z" means the same wherever a person types it.
#include <string>
#include <string_view>

#include "delayq/types.hpp"

namespace delayq {

// Parses a duration: integer milliseconds ("1500", "0"), or whole numbers each followed by a
// unit, the units largest first and each at most once: d, h, m, s, ms ("250ms", "30s", "1h30m",
// "7d12h", "1m0s500ms"). Nothing else: no sign, spaces, fractions or upper case. At most
// 2932896d23h59m59s999ms (from 1970, the end of the year 9999, the latest time delayq accepts).
// Throws InvalidArgument naming the text and what is wrong.
Duration parse_duration(std::string_view text);

// Parses a time: RFC 3339 with an offset ("2030-01-02T03:04:05Z", "2030-01-02T05:04:05.250+02:00";
// 't', 'z' and a space for 'T' are accepted too; digits past milliseconds are dropped; a leap
// second counts as the next second), or unix milliseconds as digits ("1893553445000"). From
// 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. Throws InvalidArgument naming the text and
// what is wrong.
TimePoint parse_time(std::string_view text);

// The exact duration in parse_duration's grammar, largest unit first and zero units left out:
// "0ms", "250ms", "1s500ms", "1h30m", "7d". A negative duration gets a leading '-', which
// parse_duration refuses.
std::string format_duration(Duration d);

// RFC 3339 in UTC with milliseconds, "2030-01-02T03:04:05.678Z": what parse_time reads back, for
// times in the years 0000 to 9999.
std::string format_time(TimePoint t);

}  // namespace delayq
