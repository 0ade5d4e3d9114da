#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "delayq/types.hpp"
#include "redis/script.hpp"

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

// The arguments of a script that takes one message id (get, cancel); throws InvalidArgument.
ScriptArgs encode_id(std::string_view id);

}  // namespace delayq::detail
