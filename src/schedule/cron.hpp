#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace delayq::detail {

// A cron expression, parsed: which wall-clock seconds it matches, with no time zone. Five fields
// (minute hour day-of-month month day-of-week) or six with seconds first, or a macro (@daily).
// L, W and # are refused rather than half-supported. Immutable once parsed.
class CronExpr {
  public:
    // Throws InvalidArgument naming the field and the reason:
    // `cron: minute field "61" is out of range 0-59`.
    static CronExpr parse(std::string_view text);

    // The first matching wall-clock second at or after `from`; nullopt when there is none
    // before the end of the year 9999. Jumps field by field, so a call costs microseconds
    // even for a leap-day expression.
    std::optional<std::chrono::local_seconds> next(std::chrono::local_seconds from) const;
    bool matches(std::chrono::local_seconds t) const;

    // Whether the hour field is `*` or `*/n`: such a schedule counts elapsed time across a
    // daylight-saving change, where one at fixed hours keeps to the wall clock (recurrence.cpp).
    bool follows_elapsed_time() const { return hour_wildcard_; }

  private:
    CronExpr() = default;
    bool day_matches(std::chrono::year_month_day day) const;

    // Bit n set: value n matches. Days of the week count Sunday as 0.
    std::uint64_t seconds_ = 0;
    std::uint64_t minutes_ = 0;
    std::uint64_t hours_ = 0;
    std::uint64_t days_ = 0;
    std::uint64_t months_ = 0;
    std::uint64_t weekdays_ = 0;
    bool days_restricted_ = false;
    bool weekdays_restricted_ = false;
    bool hour_wildcard_ = false;
};

}  // namespace delayq::detail
