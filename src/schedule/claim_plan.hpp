#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "delayq/schedules.hpp"
#include "schedule/recurrence.hpp"

namespace delayq::detail {

// What one claim of a schedule sends: computed by the scheduler from the schedule's next
// occurrence not yet sent and the Redis clock, then written by schedule_claim.lua if nobody
// claimed first.
struct ClaimPlan {
    // Ascending: missed occurrences the catch-up policy keeps, the late ones within
    // kScheduleGrace, and with overlap allow the next one, sent ahead.
    std::vector<TimePoint> instants;
    // Occurrences more than kScheduleGrace late that the policy does not send, but for those
    // jumped over past kMissedScanLimit.
    std::size_t missed = 0;
    // The schedule's next occurrence after the claim; nullopt when it ends.
    std::optional<TimePoint> then;
};

// A schedule left unclaimed very long (a 1 s cron for 11 days) is walked this many occurrences
// at most; the claim then jumps over all but the newest `keep` missed ones (bisecting the time
// left up to the grace), so that catch-up still sends the newest, and the occurrences jumped
// over are not counted in `missed`: bounded work per claim over an exact count.
inline constexpr std::size_t kMissedScanLimit = 1'000'000;

ClaimPlan plan_claim(const Recurrence& recurrence, const ScheduleSpec& spec, TimePoint next,
                     TimePoint now);

}  // namespace delayq::detail
