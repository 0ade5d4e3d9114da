#pragma once

#include <chrono>
#include <delayq/time.hpp>
#include <delayq/types.hpp>
#include <string>
#include <string_view>

namespace delayq::cli {

// delayq::parse_duration and parse_time (delayq/time.hpp) for the CLI's arguments and JSON lines:
// bad text throws UsageError with the library's message.
Duration duration_arg(std::string_view text);
// From 1970 to the end of the year 9999, parse_time's range and the library's.
TimePoint time_arg(std::string_view text);

// Unix milliseconds of a time point.
long long unix_ms(TimePoint t);

// "in 2m30s" or "1h5m ago": the two largest units of the distance from now, for people.
std::string relative_time(TimePoint t, TimePoint now);
// The two largest units of a duration: "250ms", "1s500ms", "2m30s", "1h5m", "3d4h".
std::string rough_duration(Duration d);

}  // namespace delayq::cli
