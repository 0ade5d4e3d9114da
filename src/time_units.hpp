#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace delayq::detail {

struct TimeUnit {
    std::string_view name;
    std::int64_t ms;
};

// The units of the duration grammar, largest first: the order a duration must give them in.
inline constexpr std::array<TimeUnit, 5> kUnits{{
    {"d", 86'400'000},
    {"h", 3'600'000},
    {"m", 60'000},
    {"s", 1000},
    {"ms", 1},
}};

}  // namespace delayq::detail
