#include "duration.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "errors.hpp"

namespace delayq::cli {
namespace {

using std::chrono::milliseconds;

// The library refuses times past 9999-12-31, so nothing longer is worth accepting.
constexpr std::int64_t kMaxMs = 253'402'300'799'999;

constexpr std::string_view kDurationHelp =
    "expected a number with a unit (ms, s, m, h, d), e.g. 250ms, 30s, 5m, 2h, 1h30m or 7d";

[[noreturn]] void bad_duration(std::string_view text, std::string_view why) {
    throw UsageError("invalid duration \"" + std::string(text) + "\": " + std::string(why));
}

std::optional<std::int64_t> unit_ms(std::string_view unit) {
    if (unit == "ms") return 1;
    if (unit == "s") return 1000;
    if (unit == "m") return 60'000;
    if (unit == "h") return 3'600'000;
    if (unit == "d") return 86'400'000;
    return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `width` digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
    if (pos + width > text.size()) return std::nullopt;
    int value = 0;
    for (std::size_t i = pos; i < pos + width; ++i) {
        if (!is_digit(text[i])) return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

// Unix milliseconds: converting to system_clock here could overflow (see to_clock).
std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
    using namespace std::chrono;
    // YYYY-MM-DDTHH:MM:SS
    auto year = digits(s, 0, 4);
    auto mon = digits(s, 5, 2);
    auto mday = digits(s, 8, 2);
    auto hour = digits(s, 11, 2);
    auto min = digits(s, 14, 2);
    auto sec = digits(s, 17, 2);
    if (!year || !mon || !mday || !hour || !min || !sec || s[4] != '-' || s[7] != '-' ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
        return std::nullopt;
    }
    const year_month_day ymd{std::chrono::year{*year}, month{static_cast<unsigned>(*mon)},
                             day{static_cast<unsigned>(*mday)}};
    // 60 is a leap second, which unix time folds into the next second.
    if (!ymd.ok() || *hour > 23 || *min > 59 || *sec > 60) return std::nullopt;
    std::size_t pos = 19;
    std::int64_t frac_ms = 0;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        const std::size_t start = pos;
        std::int64_t scale = 100;
        while (pos < s.size() && is_digit(s[pos])) {
            frac_ms += (s[pos] - '0') * scale;  // digits past milliseconds are truncated
            scale /= 10;
            ++pos;
        }
        if (pos == start) return std::nullopt;
    }
    if (pos >= s.size()) return std::nullopt;  // RFC 3339 requires the offset
    minutes offset{0};
    if (s[pos] == 'Z' || s[pos] == 'z') {
        ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
        auto oh = digits(s, pos + 1, 2);
        auto om = digits(s, pos + 4, 2);
        if (!oh || !om || pos + 3 >= s.size() || s[pos + 3] != ':' || *oh > 23 || *om > 59) {
            return std::nullopt;
        }
        offset = hours(*oh) + minutes(*om);
        if (s[pos] == '-') offset = -offset;
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != s.size()) return std::nullopt;
    auto tp = sys_days(ymd) + hours(*hour) + minutes(*min) + seconds(*sec) + milliseconds(frac_ms) -
              offset;
    return duration_cast<milliseconds>(tp.time_since_epoch()).count();
}

}  // namespace

milliseconds parse_duration(std::string_view text) {
    if (text.empty()) bad_duration(text, kDurationHelp);
    if (text.front() == '-') bad_duration(text, "must not be negative");
    if (text == "0") return milliseconds(0);
    std::int64_t total = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t start = pos;
        while (pos < text.size() && is_digit(text[pos])) ++pos;
        if (pos == start) bad_duration(text, kDurationHelp);
        std::int64_t number = 0;
        auto [end, ec] = std::from_chars(text.data() + start, text.data() + pos, number);
        if (ec != std::errc{} || number > kMaxMs) bad_duration(text, "is too long");
        const std::size_t unit_start = pos;
        while (pos < text.size() && !is_digit(text[pos])) ++pos;
        auto factor = unit_ms(text.substr(unit_start, pos - unit_start));
        if (!factor) bad_duration(text, kDurationHelp);
        if (number > (kMaxMs - total) / *factor) bad_duration(text, "is too long");
        total += number * *factor;
    }
    return milliseconds(total);
}

namespace {

// system_clock counts nanoseconds in libstdc++, so it ends on 2262-04-11 and begins in 1677:
// converting a unix-ms time outside that range overflowed (undefined behaviour; in practice a
// wrapped, wrong due time). Refuse such times instead.
std::chrono::system_clock::time_point to_clock(std::int64_t ms, std::string_view text) {
    using std::chrono::system_clock;
    constexpr auto kClockMax =
        std::chrono::duration_cast<milliseconds>(system_clock::duration::max()).count();
    constexpr auto kClockMin =
        std::chrono::duration_cast<milliseconds>(system_clock::duration::min()).count();
    if (ms > kMaxMs) {
        throw UsageError("invalid time \"" + std::string(text) + "\": after the year 9999");
    }
    if (ms > kClockMax) {
        throw UsageError("invalid time \"" + std::string(text) + "\": after " +
                         format_time(TimePoint(milliseconds(kClockMax))) +
                         ", the latest time this system's clock can represent");
    }
    // Later times before 1970 are left to the library, which refuses them with its message.
    if (ms < kClockMin) {
        throw UsageError("invalid time \"" + std::string(text) + "\": before 1970");
    }
    return system_clock::time_point(
        std::chrono::duration_cast<system_clock::duration>(milliseconds(ms)));
}

}  // namespace

std::chrono::system_clock::time_point parse_time(std::string_view text) {
    bool all_digits = !text.empty();
    for (char c : text) all_digits = all_digits && is_digit(c);
    if (all_digits) {
        std::int64_t ms = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
        if (ec != std::errc{}) {
            throw UsageError("invalid time \"" + std::string(text) + "\": after the year 9999");
        }
        return to_clock(ms, text);
    }
    if (auto ms = parse_rfc3339(text)) return to_clock(*ms, text);
    throw UsageError("invalid time \"" + std::string(text) +
                     "\": expected RFC 3339 (e.g. 2030-01-02T03:04:05Z or "
                     "2030-01-02T05:04:05.250+02:00) or unix milliseconds (e.g. 1893553445000)");
}

std::string format_duration(milliseconds d) {
    const bool negative = d.count() < 0;
    std::int64_t ms = negative ? -d.count() : d.count();
    char buf[64];
    if (ms < 1000) {
        std::snprintf(buf, sizeof buf, "%lldms", static_cast<long long>(ms));
    } else if (ms < 60'000) {
        std::snprintf(buf, sizeof buf, "%.3gs", static_cast<double>(ms) / 1000.0);
    } else if (ms < 3'600'000) {
        std::snprintf(buf, sizeof buf, "%lldm%llds", static_cast<long long>(ms / 60'000),
                      static_cast<long long>(ms % 60'000 / 1000));
    } else if (ms < 86'400'000) {
        std::snprintf(buf, sizeof buf, "%lldh%lldm", static_cast<long long>(ms / 3'600'000),
                      static_cast<long long>(ms % 3'600'000 / 60'000));
    } else {
        std::snprintf(buf, sizeof buf, "%lldd%lldh", static_cast<long long>(ms / 86'400'000),
                      static_cast<long long>(ms % 86'400'000 / 3'600'000));
    }
    return negative ? "-" + std::string(buf) : std::string(buf);
}

std::string format_time(TimePoint t) {
    using namespace std::chrono;
    const auto day_start = floor<days>(t);
    const year_month_day ymd{day_start};
    const hh_mm_ss hms{t - day_start};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<long long>(hms.hours().count()),
                  static_cast<long long>(hms.minutes().count()),
                  static_cast<long long>(hms.seconds().count()),
                  static_cast<long long>(hms.subseconds().count()));
    return buf;
}

long long unix_ms(TimePoint t) { return static_cast<long long>(t.time_since_epoch().count()); }

}  // namespace delayq::cli
