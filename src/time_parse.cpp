// The grammar of durations and times that every front end reads (see delayq/time.hpp).
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>

#include "delayq/error.hpp"
#include "delayq/time.hpp"
#include "time_units.hpp"
#include "validate.hpp"

namespace delayq {
namespace {

constexpr std::string_view kDurationForm =
    "expected integer milliseconds or whole numbers with units, largest first and each at most "
    "once (d, h, m, s, ms), e.g. 1500, 250ms, 30s, 1h30m or 7d";

constexpr std::string_view kTimeForm =
    "expected RFC 3339 (e.g. 2030-01-02T03:04:05Z or 2030-01-02T05:04:05.250+02:00) or unix "
    "milliseconds (e.g. 1893553445000)";

// The text as the error shows it: quoted, control bytes escaped, cut when long (it may come from
// an HTTP request, where it can be anything).
std::string quoted(std::string_view text) {
    constexpr std::size_t kShown = 64;
    std::string out = "\"";
    for (const char ch : text.substr(0, kShown)) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20 || c >= 0x7f) {
            std::array<char, 5> hex{};
            std::snprintf(hex.data(), hex.size(), "\\x%02x", static_cast<unsigned>(c));
            out += hex.data();
        } else {
            out += ch;
        }
    }
    out += text.size() > kShown ? "...\"" : "\"";
    return out;
}

// The parts one after another. Messages are built this way rather than with "literal" +
// std::string, which GCC 12 at -O3 reports as a -Wrestrict overlap (a false positive).
std::string concat(std::initializer_list<std::string_view> parts) {
    std::size_t size = 0;
    for (const auto part : parts) size += part.size();
    std::string out;
    out.reserve(size);
    for (const auto part : parts) out.append(part);
    return out;
}

[[noreturn]] void bad_duration(std::string_view text, std::string_view why) {
    throw InvalidArgument(concat({"invalid duration ", quoted(text), ": ", why}));
}

[[noreturn]] void bad_time(std::string_view text, std::string_view why) {
    throw InvalidArgument(concat({"invalid time ", quoted(text), ": ", why}));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool all_digits(std::string_view text) {
    if (text.empty()) return false;
    for (const char c : text) {
        if (!is_digit(c)) return false;
    }
    return true;
}

// Digits only, as a number; nullopt when it does not fit in int64.
std::optional<std::int64_t> to_int(std::string_view digits) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{}) return std::nullopt;
    return value;
}

[[noreturn]] void too_long(std::string_view text) {
    bad_duration(text, "is too long (at most " + format_duration(Duration(detail::kMaxTimeMs)) +
                           ", which reaches the end of the year 9999)");
}

// Where parse_duration is in its text, and which units it has passed.
struct DurationCursor {
    std::size_t pos = 0;
    std::size_t next = 0;  // index in kUnits of the largest unit still allowed
    unsigned seen = 0;     // bit i: kUnits[i] was given
};

// The milliseconds of one "<number><unit>" term at the cursor, which it moves past.
std::int64_t duration_term(std::string_view text, DurationCursor& cursor) {
    std::size_t& pos = cursor.pos;
    const std::size_t start = pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    if (pos == start) bad_duration(text, kDurationForm);
    const std::string_view number = text.substr(start, pos - start);
    const std::size_t unit_start = pos;
    while (pos < text.size() && is_letter(text[pos])) ++pos;
    const std::string_view unit = text.substr(unit_start, pos - unit_start);
    if (unit.empty()) {
        if (pos < text.size() && text[pos] == '.') {
            bad_duration(text, "numbers must be whole: use a smaller unit (1s500ms, not 1.5s)");
        }
        if (pos == text.size()) {
            bad_duration(text, concat({"\"", number, "\" has no unit (d, h, m, s, ms)"}));
        }
        bad_duration(text, kDurationForm);
    }
    std::size_t index = 0;
    while (index < detail::kUnits.size() && detail::kUnits[index].name != unit) ++index;
    if (index == detail::kUnits.size()) {
        bad_duration(text, concat({"unknown unit \"", unit, "\" (units: d, h, m, s, ms)"}));
    }
    if ((cursor.seen & (1U << index)) != 0) {
        bad_duration(text, concat({"unit \"", unit, "\" appears twice"}));
    }
    if (index < cursor.next) {
        bad_duration(text, concat({"unit \"", unit,
                                   "\" comes after a smaller one: give units largest first (d, "
                                   "h, m, s, ms)"}));
    }
    cursor.seen |= 1U << index;
    cursor.next = index + 1;
    const std::int64_t factor = detail::kUnits[index].ms;
    const auto value = to_int(number);
    if (!value || *value > detail::kMaxTimeMs / factor) too_long(text);
    return *value * factor;
}

// Exactly `width` digits at `pos`.
std::optional<int> fixed_digits(std::string_view text, std::size_t pos, std::size_t width) {
    if (pos + width > text.size()) return std::nullopt;
    int value = 0;
    for (std::size_t i = pos; i < pos + width; ++i) {
        if (!is_digit(text[i])) return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

// The offset at `pos` (Z or +hh:mm / -hh:mm) in minutes east of UTC, and moves past it.
std::int64_t rfc3339_offset(std::string_view s, std::size_t& pos) {
    if (pos == s.size()) bad_time(s, "has no offset: add Z for UTC or one like +02:00");
    if (s[pos] == 'Z' || s[pos] == 'z') {
        ++pos;
        return 0;
    }
    const auto hours = fixed_digits(s, pos + 1, 2);
    const auto minutes = fixed_digits(s, pos + 4, 2);
    if ((s[pos] != '+' && s[pos] != '-') || !hours || !minutes || s[pos + 3] != ':') {
        bad_time(s, kTimeForm);
    }
    if (*hours > 23 || *minutes > 59) bad_time(s, "no such offset");
    const std::int64_t offset = std::int64_t{*hours} * 60 + *minutes;
    const bool west = s[pos] == '-';
    pos += 6;
    return west ? -offset : offset;
}

// YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm) as unix milliseconds, which can be negative.
std::int64_t rfc3339_ms(std::string_view s) {
    using namespace std::chrono;
    // "10000-01-01T00:00:00Z" is a date, only too late: say so rather than "expected RFC 3339".
    const std::size_t year_digits = s.find_first_not_of("0123456789");
    if (year_digits != std::string_view::npos && year_digits > 4 && s[year_digits] == '-') {
        bad_time(s, "is after the year 9999");
    }
    const auto year = fixed_digits(s, 0, 4);
    const auto mon = fixed_digits(s, 5, 2);
    const auto mday = fixed_digits(s, 8, 2);
    const auto hour = fixed_digits(s, 11, 2);
    const auto min = fixed_digits(s, 14, 2);
    const auto sec = fixed_digits(s, 17, 2);
    if (!year || !mon || !mday || !hour || !min || !sec || s[4] != '-' || s[7] != '-' ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
        bad_time(s, kTimeForm);
    }
    const year_month_day ymd{std::chrono::year{*year}, month{static_cast<unsigned>(*mon)},
                             day{static_cast<unsigned>(*mday)}};
    if (!ymd.ok()) bad_time(s, "no such date");
    // 60 is a leap second, which unix time folds into the next second.
    if (*hour > 23 || *min > 59 || *sec > 60) bad_time(s, "no such time of day");
    std::size_t pos = 19;
    std::int64_t frac_ms = 0;
    if (pos < s.size() && s[pos] == '.') {
        const std::size_t start = ++pos;
        std::int64_t scale = 100;
        for (; pos < s.size() && is_digit(s[pos]); ++pos) {
            frac_ms += (s[pos] - '0') * scale;  // digits past milliseconds are dropped
            scale /= 10;
        }
        if (pos == start) bad_time(s, "no digits after the decimal point");
    }
    const std::int64_t offset_min = rfc3339_offset(s, pos);
    if (pos != s.size()) bad_time(s, kTimeForm);
    const auto day_ms = duration_cast<milliseconds>(sys_days(ymd).time_since_epoch()).count();
    return day_ms + ((*hour * 60LL + *min - offset_min) * 60 + *sec) * 1000 + frac_ms;
}

}  // namespace

Duration parse_duration(std::string_view text) {
    if (text.empty()) bad_duration(text, concat({"empty; ", kDurationForm}));
    if (text.front() == '-') bad_duration(text, "must not be negative");
    if (all_digits(text)) {
        const auto ms = to_int(text);
        if (!ms || *ms > detail::kMaxTimeMs) too_long(text);
        return Duration(*ms);
    }
    std::int64_t total = 0;
    DurationCursor cursor;
    while (cursor.pos < text.size()) {
        const std::int64_t term = duration_term(text, cursor);
        if (term > detail::kMaxTimeMs - total) too_long(text);
        total += term;
    }
    return Duration(total);
}

TimePoint parse_time(std::string_view text) {
    if (text.empty()) bad_time(text, concat({"empty; ", kTimeForm}));
    std::int64_t ms = 0;
    if (all_digits(text)) {
        const auto value = to_int(text);
        if (!value) bad_time(text, "is after the year 9999");
        ms = *value;
    } else if (text.front() == '-' && all_digits(text.substr(1))) {
        bad_time(text, "is before 1970");
    } else {
        ms = rfc3339_ms(text);
    }
    if (ms < 0) bad_time(text, "is before 1970");
    if (ms > detail::kMaxTimeMs) bad_time(text, "is after the year 9999");
    return TimePoint(Duration(ms));
}

}  // namespace delayq
