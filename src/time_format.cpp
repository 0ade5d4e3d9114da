// Durations and times as text, in the grammar parse_duration and parse_time read back.
#include <array>
#include <cstdint>
#include <cstdio>

#include "delayq/time.hpp"
#include "time_units.hpp"

namespace delayq {

std::string format_duration(Duration d) {
    const bool negative = d.count() < 0;
    // Unsigned, so that the magnitude of Duration::min() fits.
    const auto count = static_cast<std::uint64_t>(d.count());
    std::uint64_t rest = negative ? ~count + 1 : count;
    if (rest == 0) return "0ms";
    std::string out = negative ? "-" : "";
    for (const auto& unit : detail::kUnits) {
        const auto size = static_cast<std::uint64_t>(unit.ms);
        if (rest < size) continue;
        out += std::to_string(rest / size);
        out += unit.name;
        rest %= size;
    }
    return out;
}

std::string format_time(TimePoint t) {
    using namespace std::chrono;
    const auto day_start = floor<days>(t);
    const year_month_day ymd{day_start};
    const hh_mm_ss hms{t - day_start};
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%04d-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<long long>(hms.hours().count()),
                  static_cast<long long>(hms.minutes().count()),
                  static_cast<long long>(hms.seconds().count()),
                  static_cast<long long>(hms.subseconds().count()));
    return buf.data();
}

}  // namespace delayq
