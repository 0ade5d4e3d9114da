#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "delayq/types.hpp"

// What every script codec reads the same way.
namespace delayq::detail {

inline TimePoint unix_ms(std::int64_t ms) { return TimePoint(Duration(ms)); }

// A time the scripts send as -1 when there is none.
inline std::optional<TimePoint> optional_unix_ms(std::int64_t ms) {
    if (ms < 0) return std::nullopt;
    return unix_ms(ms);
}

// A number the scripts send as decimal digits (a score as Redis formats it); throws ServerError
// naming `what` otherwise.
std::int64_t decimal(std::string_view text, const char* what);

}  // namespace delayq::detail
