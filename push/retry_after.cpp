#include "push/retry_after.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace delayq::push {
namespace {

using std::chrono::system_clock;

constexpr std::array<std::string_view, 7> kDayNames = {"Mon", "Tue", "Wed", "Thu",
                                                       "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDayNames = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool same_letters(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

// Reads an HTTP-date front to back; any mismatch leaves it failed, and every later read fails.
class DateReader {
  public:
    explicit DateReader(std::string_view text) : text_(text) {}

    bool at_end() const { return ok_ && text_.empty(); }

    void literal(std::string_view expected) {
        if (ok_ && same_letters(text_.substr(0, expected.size()), expected)) {
            text_.remove_prefix(expected.size());
        } else {
            ok_ = false;
        }
    }

    // Exactly `count` digits.
    int digits(std::size_t count) {
        int value = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (!ok_ || text_.empty() || text_.front() < '0' || text_.front() > '9') {
                ok_ = false;
                return 0;
            }
            value = value * 10 + (text_.front() - '0');
            text_.remove_prefix(1);
        }
        return value;
    }

    // The index of the name that comes next.
    template <std::size_t N>
    unsigned one_of(const std::array<std::string_view, N>& names) {
        for (std::size_t i = 0; i < N && ok_; ++i) {
            if (same_letters(text_.substr(0, names[i].size()), names[i])) {
                text_.remove_prefix(names[i].size());
                return static_cast<unsigned>(i);
            }
        }
        ok_ = false;
        return 0;
    }

    // asctime's day: two digits, or a space and one digit.
    int padded_day() {
        if (ok_ && text_.starts_with(' ')) {
            text_.remove_prefix(1);
            return digits(1);
        }
        return digits(2);
    }

  private:
    std::string_view text_;
    bool ok_ = true;
};

struct Clock {
    int hour = 0;
    int minute = 0;
    int second = 0;
};

Clock time_of_day(DateReader& in) {
    Clock t;
    t.hour = in.digits(2);
    in.literal(":");
    t.minute = in.digits(2);
    in.literal(":");
    t.second = in.digits(2);
    return t;
}

// In seconds: system_clock's nanoseconds end in 2262 and begin in 1677, and a header may name
// any year from 0000 to 9999.
std::optional<std::chrono::sys_seconds> instant(int year, unsigned month, int day, const Clock& t) {
    const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{month},
                                           std::chrono::day{static_cast<unsigned>(day)}};
    // 60 seconds: a leap second, as the grammar allows.
    if (!date.ok() || t.hour > 23 || t.minute > 59 || t.second > 60) return std::nullopt;
    return std::chrono::sys_days{date} + std::chrono::hours{t.hour} +
           std::chrono::minutes{t.minute} + std::chrono::seconds{t.second};
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<std::chrono::sys_seconds> imf_fixdate(std::string_view text) {
    DateReader in(text);
    in.one_of(kDayNames);
    in.literal(", ");
    const int day = in.digits(2);
    in.literal(" ");
    const unsigned month = in.one_of(kMonthNames) + 1;
    in.literal(" ");
    const int year = in.digits(4);
    in.literal(" ");
    const Clock t = time_of_day(in);
    in.literal(" GMT");
    if (!in.at_end()) return std::nullopt;
    return instant(year, month, day, t);
}

// "Sunday, 06-Nov-94 08:49:37 GMT". RFC 9110 reads a two-digit year that would be more than 50
// years ahead as the latest past year that ends in the same digits.
std::optional<std::chrono::sys_seconds> rfc850_date(std::string_view text,
                                                    system_clock::time_point now) {
    DateReader in(text);
    in.one_of(kLongDayNames);
    in.literal(", ");
    const int day = in.digits(2);
    in.literal("-");
    const unsigned month = in.one_of(kMonthNames) + 1;
    in.literal("-");
    const int two_digits = in.digits(2);
    in.literal(" ");
    const Clock t = time_of_day(in);
    in.literal(" GMT");
    if (!in.at_end()) return std::nullopt;
    const int this_year = static_cast<int>(
        std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(now)}.year());
    int year = this_year / 100 * 100 + two_digits;
    if (year > this_year + 50) year -= 100;
    return instant(year, month, day, t);
}

// "Sun Nov  6 08:49:37 1994"
std::optional<std::chrono::sys_seconds> asctime_date(std::string_view text) {
    DateReader in(text);
    in.one_of(kDayNames);
    in.literal(" ");
    const unsigned month = in.one_of(kMonthNames) + 1;
    in.literal(" ");
    const int day = in.padded_day();
    in.literal(" ");
    const Clock t = time_of_day(in);
    in.literal(" ");
    const int year = in.digits(4);
    if (!in.at_end()) return std::nullopt;
    return instant(year, month, day, t);
}

std::optional<std::chrono::milliseconds> delay_seconds(std::string_view digits) {
    constexpr std::int64_t kMaxSeconds =
        std::chrono::duration_cast<std::chrono::seconds>(kMaxRetryAfter).count();
    std::int64_t seconds = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        // Past the cap the value no longer matters, and it must not overflow.
        seconds = std::min(seconds * 10 + (c - '0'), kMaxSeconds + 1);
    }
    if (seconds > kMaxSeconds) return kMaxRetryAfter;
    return std::chrono::seconds{seconds};
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           system_clock::time_point now) {
    const auto first = value.find_first_not_of(" \t");
    if (first == std::string_view::npos) return std::nullopt;
    value = value.substr(first, value.find_last_not_of(" \t") - first + 1);
    if (value.front() >= '0' && value.front() <= '9') return delay_seconds(value);

    auto date = imf_fixdate(value);
    if (!date) date = rfc850_date(value, now);
    if (!date) date = asctime_date(value);
    if (!date) return std::nullopt;
    // Compared in milliseconds, which hold both ends (the date's seconds as they are, and `now`
    // rounded down: the wait is then rounded up, as the date is a whole second).
    const auto now_ms = std::chrono::floor<std::chrono::milliseconds>(now);
    const std::chrono::sys_time<std::chrono::milliseconds> due = *date;
    if (due <= now_ms) return std::chrono::milliseconds{0};
    return std::min(due - now_ms, kMaxRetryAfter);
}

}  // namespace delayq::push
