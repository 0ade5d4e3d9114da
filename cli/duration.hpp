#pragma once

#include <chrono>
#include <delayq/types.hpp>
#include <string>
#include <string_view>

namespace delayq::cli {

// Parses "250ms", "30s", "5m", "2h", "7d" and sums like "1h30m"; "0" alone is also accepted.
// Throws UsageError (negative, unit missing or unknown, past the year 9999).
std::chrono::milliseconds parse_duration(std::string_view text);

// Parses an RFC 3339 time ("2030-01-02T03:04:05.678Z", "...+02:00") or unix milliseconds
// (digits only). Throws UsageError.
std::chrono::system_clock::time_point parse_time(std::string_view text);

// "250ms", "1.5s", "2m30s", "1h5m", "3d4h": short and readable, not exact for large values.
std::string format_duration(std::chrono::milliseconds d);

// RFC 3339 in UTC with milliseconds, e.g. "2030-01-02T03:04:05.678Z".
std::string format_time(TimePoint t);

// Unix milliseconds of a time point.
long long unix_ms(TimePoint t);

}  // namespace delayq::cli
