#include "schedule/claim_plan.hpp"

#include <deque>

#include "delayq/limits.hpp"

namespace delayq::detail {
namespace {

// Whether [from, before) holds at least `keep` (>= 1) occurrences: at most `keep` after() calls.
bool holds_at_least(const Recurrence& recurrence, TimePoint from, TimePoint before,
                    std::size_t keep) {
    std::optional<TimePoint> t = recurrence.after(from - Duration(1));
    for (std::size_t found = 1; found < keep && t && *t < before; ++found) {
        t = recurrence.after(*t);
    }
    return t && *t < before;
}

// The latest instant in [stop, before) from which `keep` (>= 1) occurrences remain before
// `before`, or `stop` when fewer than `keep` do: so that [start, before) holds the newest `keep`
// missed occurrences and at most `keep`. Recurrence only steps forward, so this bisects the time
// instead of the occurrences: a cron's occurrences need not be evenly spread, and the count of
// occurrences in [start, before) only falls as start grows, by one at each occurrence. Each probe
// costs at most `keep` after() calls, and there are 1 + ceil(log2 of the span in ms) of them at
// most: 49 for a span from 1970 to the year 9999.
TimePoint newest_start(const Recurrence& recurrence, TimePoint stop, TimePoint before,
                       std::size_t keep) {
    if (!holds_at_least(recurrence, stop, before, keep)) return stop;
    TimePoint holds = stop;
    TimePoint short_of = before;  // [before, before) holds none
    while (short_of - holds > Duration(1)) {
        const TimePoint mid = holds + (short_of - holds) / 2;
        (holds_at_least(recurrence, mid, before, keep) ? holds : short_of) = mid;
    }
    return holds;
}

}  // namespace

ClaimPlan plan_claim(const Recurrence& recurrence, const ScheduleSpec& spec, TimePoint next,
                     TimePoint now) {
    ClaimPlan plan;
    std::size_t keep = 0;
    if (spec.catch_up == CatchUp::kOne) keep = 1;
    if (spec.catch_up == CatchUp::kAll) keep = kMaxCatchUp;
    // Missed: older than the grace. The newest `keep` of them are sent, the rest counted.
    const TimePoint missed_before = now - kScheduleGrace;
    std::deque<TimePoint> kept;
    std::optional<TimePoint> t = next;
    std::size_t walked = 0;
    bool jumped = false;
    while (t && *t < missed_before) {
        if (walked == kMissedScanLimit && !jumped) {
            // Still missed ones left: jump over all but the newest `keep` of them, which are
            // walked (with those already kept) as the rest was.
            jumped = true;
            const TimePoint from =
                keep == 0 ? missed_before : newest_start(recurrence, *t, missed_before, keep);
            t = recurrence.after(from - Duration(1));
            continue;
        }
        ++walked;
        kept.push_back(*t);
        if (kept.size() > keep) {
            kept.pop_front();
            ++plan.missed;
        }
        t = recurrence.after(*t);
    }
    plan.instants.assign(kept.begin(), kept.end());
    // Late, but within the grace: a slow scheduler's or a new queue's discovery, not a miss.
    while (t && *t <= now) {
        plan.instants.push_back(*t);
        t = recurrence.after(*t);
    }
    // With overlap allow the next occurrence goes ahead now, as an ordinary delayed message;
    // with skip it is claimed at its instant, when the previous one's state can be told.
    if (spec.overlap == Overlap::kAllow && t) {
        plan.instants.push_back(*t);
        t = recurrence.after(*t);
    }
    plan.then = t;
    return plan;
}

}  // namespace delayq::detail
