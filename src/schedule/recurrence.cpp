#include "schedule/recurrence.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "delayq/error.hpp"
#include "delayq/time.hpp"
#include "schedule/cron.hpp"
#include "schedule/zone.hpp"
#include "shared_constants.hpp"

namespace delayq::detail {
namespace {

using std::chrono::seconds;
using std::chrono::sys_seconds;
using LocalSeconds = std::chrono::local_seconds;

[[noreturn]] void invalid(std::string_view field, const std::string& why) {
    throw InvalidArgument(std::string(field) + ": " + why);
}

// date's local clock is its own type (GCC 12's <chrono> has no zones), with the same count.
date::local_seconds to_date(LocalSeconds t) { return date::local_seconds{t.time_since_epoch()}; }
LocalSeconds local_at(sys_seconds t, seconds offset) {
    return LocalSeconds{t.time_since_epoch() + offset};
}

void check_time(const std::optional<TimePoint>& t, std::string_view field) {
    if (t && (t->time_since_epoch().count() < 0 || t->time_since_epoch().count() > kMaxTimeMs)) {
        invalid(field, format_time(*t) + " is not from 1970 to the end of the year 9999");
    }
}

// How a cron schedule meets a daylight-saving change. Two kinds, as Vixie cron and its heirs
// treat them, because either rule alone surprises someone:
//
// - Fixed hours ("30 2 * * *", "0 9 * * MON-FRI", @daily): the job is about a wall-clock time,
//   so it runs once on every day that matches, change or not. A time the clocks skip runs at the
//   first instant after the gap: 02:30 Europe/Berlin on 2024-03-31 (02:00 -> 03:00) runs at
//   03:00 CEST = 01:00Z. A time the clocks repeat runs once, at its first (earlier) instance:
//   02:30 on 2024-10-27 runs at 02:30 CEST = 00:30Z, not again at 02:30 CET.
// - Hour field `*` or `*/n` ("*/15 * * * *", "0 * * * *", @hourly): the job is about elapsed
//   time, so it follows the instants: nothing inside the gap (no 02:00 or 02:30 on 2024-03-31
//   in Berlin), and both instances of the repeated hour (00:00Z and 01:00Z are both 02:00
//   local on 2024-10-27).
std::optional<sys_seconds> cron_elapsed(const CronExpr& cron, const Zone& zone, TimePoint t) {
    const auto now = std::chrono::floor<seconds>(t);
    // Within one offset interval local time moves with the instants: search it, else the next.
    date::sys_info info = zone.info(now);
    LocalSeconds from = local_at(now, info.offset) + seconds{1};
    while (true) {
        const std::optional<LocalSeconds> match = cron.next(from);
        if (!match) return std::nullopt;
        const sys_seconds instant{match->time_since_epoch() - info.offset};
        if (instant < info.end) return instant;
        info = zone.info(info.end);
        from = local_at(info.begin, info.offset);
    }
}

std::optional<sys_seconds> cron_fixed(const CronExpr& cron, const Zone& zone, TimePoint t) {
    const auto now = std::chrono::floor<seconds>(t);
    LocalSeconds from = local_at(now, zone.info(now).offset) + seconds{1};
    // The instant of a wall-clock time never decreases as the wall-clock time grows (a gap's
    // times all map to its end, a repeat's to their first instance), so the first match whose
    // instant is after t is the answer; at most a repeat or a gap is stepped over to find it.
    while (true) {
        const std::optional<LocalSeconds> match = cron.next(from);
        if (!match) return std::nullopt;
        const date::local_info info = zone.info(to_date(*match));
        sys_seconds instant{match->time_since_epoch() - info.first.offset};
        LocalSeconds past = *match + seconds{1};
        if (info.result == date::local_info::nonexistent) {
            instant = info.second.begin;
            past = std::max(past, local_at(info.second.begin, info.second.offset));
        } else if (info.result == date::local_info::ambiguous) {
            past = std::max(past, local_at(info.second.begin, info.first.offset));
        }
        if (instant > t) return instant;
        from = past;
    }
}

}  // namespace

struct Recurrence::Impl {
    std::optional<CronExpr> cron;
    std::optional<Zone> zone;
    Duration every{0};
    TimePoint anchor{};
    // `every` from `start`: start is an occurrence. From the first upsert: it is not.
    bool anchor_fires = false;
    std::optional<TimePoint> start;
    std::optional<TimePoint> end;

    std::optional<TimePoint> unbounded_after(TimePoint t) const {
        if (cron) {
            const auto next = cron->follows_elapsed_time() ? cron_elapsed(*cron, *zone, t)
                                                           : cron_fixed(*cron, *zone, t);
            if (!next) return std::nullopt;
            return TimePoint{*next};
        }
        const TimePoint first = anchor_fires ? anchor : anchor + every;
        if (t < first) return first;
        return anchor + ((t - anchor) / every + 1) * every;
    }
};

Recurrence::Recurrence(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Recurrence Recurrence::make(const ScheduleSpec& spec, TimePoint anchor) {
    auto impl = std::make_shared<Impl>();
    const bool has_cron = !spec.cron.empty();
    const bool has_every = spec.every.count() != 0;
    if (has_cron && has_every) {
        invalid("every", "must not be set with cron: a schedule has one or the other");
    }
    if (!has_cron && !has_every) invalid("cron", "a schedule needs cron or every, and has neither");
    if (has_cron) {
        impl->cron = CronExpr::parse(spec.cron);
        impl->zone = Zone::locate(spec.tz);
    } else {
        if (spec.every < kMinScheduleEvery) {
            invalid("every", format_duration(spec.every) + " is under the minimum of " +
                                 format_duration(kMinScheduleEvery));
        }
        if (spec.every.count() > kMaxTimeMs)
            invalid("every", "is absurdly long (past the year 9999)");
        if (spec.tz != "UTC") {
            invalid("tz", "\"" + spec.tz +
                              "\" does not go with every: an interval counts elapsed time, so "
                              "its zone is \"UTC\"");
        }
        impl->every = spec.every;
    }
    check_time(spec.start, "start");
    check_time(spec.end, "end");
    if (spec.start && spec.end && *spec.end < *spec.start) {
        invalid("end", format_time(*spec.end) + " is before start " + format_time(*spec.start));
    }
    impl->anchor = spec.start.value_or(anchor);
    impl->anchor_fires = spec.start.has_value();
    impl->start = spec.start;
    impl->end = spec.end;
    return Recurrence(std::move(impl));
}

std::optional<TimePoint> Recurrence::after(TimePoint t) const {
    const Impl& r = *impl_;
    if (t.time_since_epoch().count() >= kMaxTimeMs) return std::nullopt;
    // Nothing happens before 1970; and start itself may be an occurrence.
    t = std::max(t, TimePoint{Duration{-1}});
    if (r.start && t < *r.start) t = *r.start - Duration{1};
    const std::optional<TimePoint> next = r.unbounded_after(t);
    if (!next || next->time_since_epoch().count() > kMaxTimeMs || (r.end && *next > *r.end)) {
        return std::nullopt;
    }
    return next;
}

}  // namespace delayq::detail
