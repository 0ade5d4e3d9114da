#include "schedule/claim_plan.hpp"

#include <deque>

#include "delayq/limits.hpp"

namespace delayq::detail {

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
    while (t && *t < missed_before) {
        if (++walked > kMissedScanLimit) {
            t = recurrence.after(missed_before - Duration(1));
            if (!t || *t >= missed_before) break;
        }
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
