#include "schedule/cron.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <span>
#include <string>
#include <vector>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

using std::chrono::days;
using std::chrono::local_days;
using std::chrono::local_seconds;

constexpr std::array<std::string_view, 12> kMonthNames{"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<std::string_view, 7> kDayNames{"SUN", "MON", "TUE", "WED",
                                                    "THU", "FRI", "SAT"};

struct Field {
    std::string_view name;
    int min;
    int max;
    // What `*` spans: day-of-week takes 7 for Sunday too, but `*/2` must not count it twice.
    int star_max;
    std::span<const std::string_view> names{};
    int first_name_value = 0;
    std::string_view names_hint{};
    bool day_field = false;
};

constexpr Field kSecond{"second", 0, 59, 59};
constexpr Field kMinute{"minute", 0, 59, 59};
constexpr Field kHour{"hour", 0, 23, 23};
constexpr Field kDayOfMonth{"day-of-month", 1, 31, 31, {}, 0, {}, true};
constexpr Field kMonth{"month", 1, 12, 12, kMonthNames, 1, "a month name (JAN-DEC)"};
constexpr Field kDayOfWeek{"day-of-week", 0, 7, 6, kDayNames, 0, "a day name (SUN-SAT)", true};

[[noreturn]] void fail(const Field& field, std::string_view text, std::string_view why) {
    throw InvalidArgument("cron: " + std::string(field.name) + " field \"" + std::string(text) +
                          "\"" + std::string(why));
}

bool iequals(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::toupper(static_cast<unsigned char>(x)) ==
               std::toupper(static_cast<unsigned char>(y));
    });
}

bool all_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

std::string range_text(const Field& field) {
    return " is out of range " + std::to_string(field.min) + "-" + std::to_string(field.max);
}

// One value of an item (a number or a name); `item` is what the error quotes.
int parse_value(const Field& field, std::string_view text, std::string_view item) {
    if (all_digits(text)) {
        int value = 0;
        // Over 4 digits is out of range anyway, and would not fit an int.
        if (text.size() > 4) fail(field, item, range_text(field));
        std::from_chars(text.data(), text.data() + text.size(), value);
        if (value < field.min || value > field.max) fail(field, item, range_text(field));
        return value;
    }
    for (std::size_t i = 0; i < field.names.size(); ++i) {
        if (iequals(text, field.names[i])) return field.first_name_value + static_cast<int>(i);
    }
    if (field.day_field && text.find_first_of("LlWw#") != std::string_view::npos) {
        fail(field, item, ": L/W/# are not supported");
    }
    if (text.empty()) fail(field, item, " has an empty value");
    if (field.names.empty()) fail(field, item, " is not a number");
    fail(field, item, " is not a number or " + std::string(field.names_hint));
}

std::uint64_t parse_item(const Field& field, std::string_view item) {
    const auto slash = item.find('/');
    const std::string_view base = item.substr(0, slash);
    int step = 1;
    if (slash != std::string_view::npos) {
        const std::string_view step_text = item.substr(slash + 1);
        const int most = field.star_max - field.min + 1;
        if (!all_digits(step_text)) {
            fail(field, item,
                 " has a bad step: \"" + std::string(step_text) + "\" is not a number");
        }
        if (step_text.size() <= 4) {
            std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
        }
        if (step_text.size() > 4 || step < 1 || step > most) {
            fail(field, item, " has a bad step: must be from 1 to " + std::to_string(most));
        }
    }
    int low = 0;
    int high = 0;
    if (base == "*" || (base == "?" && field.day_field)) {
        low = field.min;
        high = field.star_max;
    } else if (base == "?") {
        fail(field, item, ": \"?\" is only for day-of-month and day-of-week");
    } else if (const auto dash = base.find('-'); dash != std::string_view::npos) {
        low = parse_value(field, base.substr(0, dash), item);
        high = parse_value(field, base.substr(dash + 1), item);
        if (low > high) fail(field, item, " is a range from high to low");
    } else {
        low = parse_value(field, base, item);
        // `a/n` runs from a to the end of the field.
        high = slash == std::string_view::npos ? low : field.star_max;
    }
    std::uint64_t bits = 0;
    for (int v = low; v <= high; v += step) {
        // Day of the week 7 is Sunday, as 0 is.
        const int bit = field.day_field && field.max == 7 && v == 7 ? 0 : v;
        bits |= std::uint64_t{1} << bit;
    }
    return bits;
}

std::uint64_t parse_field(const Field& field, std::string_view text) {
    std::uint64_t bits = 0;
    std::size_t begin = 0;
    while (true) {
        const auto comma = text.find(',', begin);
        const std::string_view item = text.substr(begin, comma - begin);
        if (item.empty()) fail(field, text, " has an empty list item");
        bits |= parse_item(field, item);
        if (comma == std::string_view::npos) return bits;
        begin = comma + 1;
    }
}

std::vector<std::string_view> split_fields(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
        const std::size_t begin = i;
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0) ++i;
        if (i > begin) fields.push_back(text.substr(begin, i - begin));
    }
    return fields;
}

struct Macro {
    std::string_view name;
    std::string_view expression;
};

constexpr std::array<Macro, 7> kMacros{{
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},
    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
}};

// The lowest set bit of `bits` at or above `from`, or -1.
int next_bit(std::uint64_t bits, int from) {
    if (from >= 64) return -1;
    const std::uint64_t rest = bits & (~std::uint64_t{0} << from);
    return rest == 0 ? -1 : std::countr_zero(rest);
}

bool has_bit(std::uint64_t bits, unsigned n) { return ((bits >> n) & 1U) != 0; }

unsigned last_day(int year, int month) {
    const std::chrono::month_day_last last{std::chrono::month{static_cast<unsigned>(month)}};
    return static_cast<unsigned>(
        std::chrono::year_month_day_last{std::chrono::year{year}, last}.day());
}

}  // namespace

CronExpr CronExpr::parse(std::string_view text) {
    std::vector<std::string_view> fields = split_fields(text);
    if (fields.empty()) throw InvalidArgument("cron: the expression is empty");
    if (fields.size() == 1 && fields[0].starts_with('@')) {
        const auto macro = std::find_if(kMacros.begin(), kMacros.end(),
                                        [&](const Macro& m) { return iequals(m.name, fields[0]); });
        if (macro == kMacros.end()) {
            throw InvalidArgument("cron: \"" + std::string(fields[0]) +
                                  "\" is not one of @yearly @annually @monthly @weekly @daily "
                                  "@midnight @hourly");
        }
        return parse(macro->expression);
    }
    if (fields.size() != 5 && fields.size() != 6) {
        throw InvalidArgument("cron: \"" + std::string(text) + "\" has " +
                              std::to_string(fields.size()) +
                              " fields, not 5 (minute hour day-of-month month day-of-week) or 6 "
                              "(second first)");
    }
    if (fields.size() == 5) fields.insert(fields.begin(), "0");
    CronExpr cron;
    cron.seconds_ = parse_field(kSecond, fields[0]);
    cron.minutes_ = parse_field(kMinute, fields[1]);
    cron.hours_ = parse_field(kHour, fields[2]);
    cron.days_ = parse_field(kDayOfMonth, fields[3]);
    cron.months_ = parse_field(kMonth, fields[4]);
    cron.weekdays_ = parse_field(kDayOfWeek, fields[5]);
    // Only the bare wildcard leaves a day field unrestricted: `*/2` restricts it (unlike
    // Vixie cron's first-character rule), so "0 0 */2 * MON" is odd days or Mondays.
    const auto restricted = [](std::string_view f) { return f != "*" && f != "?"; };
    cron.days_restricted_ = restricted(fields[3]);
    cron.weekdays_restricted_ = restricted(fields[5]);
    cron.hour_wildcard_ = fields[2] == "*" || fields[2].starts_with("*/");
    if (cron.days_restricted_ && !cron.weekdays_restricted_) {
        // "0 0 30 2 *" would search to the year 9999 for a day that never comes.
        bool possible = false;
        for (int m = 1; m <= 12; ++m) {
            // Leap years included: February has a 29th sometimes.
            const int longest = m == 2 ? 29 : static_cast<int>(last_day(2001, m));
            if (has_bit(cron.months_, static_cast<unsigned>(m)) &&
                next_bit(cron.days_, 1) <= longest) {
                possible = true;
            }
        }
        if (!possible) {
            fail(kDayOfMonth, fields[3],
                 " never occurs in the months of month field \"" + std::string(fields[4]) + "\"");
        }
    }
    return cron;
}

bool CronExpr::day_matches(std::chrono::year_month_day day) const {
    const bool dom = has_bit(days_, static_cast<unsigned>(day.day()));
    const bool dow = has_bit(weekdays_, std::chrono::weekday{local_days{day}}.c_encoding());
    // Both restricted: either one matches, as cron has always done ("0 0 13 * FRI" is every
    // 13th and every Friday). Else the unrestricted one has every bit set.
    if (days_restricted_ && weekdays_restricted_) return dom || dow;
    return dom && dow;
}

bool CronExpr::matches(local_seconds t) const {
    const auto day = std::chrono::floor<days>(t);
    const std::chrono::year_month_day ymd{day};
    const std::chrono::hh_mm_ss hms{t - day};
    return has_bit(months_, static_cast<unsigned>(ymd.month())) && day_matches(ymd) &&
           has_bit(hours_, static_cast<unsigned>(hms.hours().count())) &&
           has_bit(minutes_, static_cast<unsigned>(hms.minutes().count())) &&
           has_bit(seconds_, static_cast<unsigned>(hms.seconds().count()));
}

std::optional<local_seconds> CronExpr::next(local_seconds from) const {
    const auto first_day = std::chrono::floor<days>(from);
    const std::chrono::year_month_day ymd{first_day};
    const std::chrono::hh_mm_ss hms{from - first_day};
    int year = static_cast<int>(ymd.year());
    int month = static_cast<int>(static_cast<unsigned>(ymd.month()));
    int day = static_cast<int>(static_cast<unsigned>(ymd.day()));
    int hour = static_cast<int>(hms.hours().count());
    int minute = static_cast<int>(hms.minutes().count());
    int second = static_cast<int>(hms.seconds().count());
    // Each step moves to the next value a field allows, resetting the smaller fields to their
    // start, or carries into the next larger field when none is left.
    while (year <= 9999) {
        const int next_month = next_bit(months_, month);
        if (next_month < 0) {
            ++year;
            month = 1;
            day = 1;
            hour = minute = second = 0;
            continue;
        }
        if (next_month != month) {
            month = next_month;
            day = 1;
            hour = minute = second = 0;
        }
        const int days_in_month = static_cast<int>(last_day(year, month));
        if (!weekdays_restricted_) {
            const int next_day = next_bit(days_, day);
            if (next_day != day) hour = minute = second = 0;
            day = next_day < 0 ? days_in_month + 1 : next_day;
        } else {
            while (day <= days_in_month &&
                   !day_matches(std::chrono::year_month_day{
                       std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                       std::chrono::day{static_cast<unsigned>(day)}})) {
                ++day;
                hour = minute = second = 0;
            }
        }
        if (day > days_in_month) {
            ++month;
            day = 1;
            hour = minute = second = 0;
            continue;
        }
        const int next_hour = next_bit(hours_, hour);
        if (next_hour < 0) {
            ++day;
            hour = minute = second = 0;
            continue;
        }
        if (next_hour != hour) {
            hour = next_hour;
            minute = second = 0;
        }
        const int next_minute = next_bit(minutes_, minute);
        if (next_minute < 0) {
            ++hour;
            minute = second = 0;
            continue;
        }
        if (next_minute != minute) {
            minute = next_minute;
            second = 0;
        }
        const int next_second = next_bit(seconds_, second);
        if (next_second < 0) {
            ++minute;
            second = 0;
            continue;
        }
        const local_days date{std::chrono::year_month_day{
            std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
            std::chrono::day{static_cast<unsigned>(day)}}};
        return date + std::chrono::hours{hour} + std::chrono::minutes{minute} +
               std::chrono::seconds{next_second};
    }
    return std::nullopt;
}

}  // namespace delayq::detail
