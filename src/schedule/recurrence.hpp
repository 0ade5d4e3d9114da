#pragma once

#include <memory>
#include <optional>

#include "delayq/schedules.hpp"

namespace delayq::detail {

// The occurrences of a ScheduleSpec: a parsed cron expression in its zone, or an interval from
// its anchor, within start and end (max_runs is the claim's: it counts what was sent).
// Computed in C++ from the system's tzdata, so that Redis only stores instants. Immutable and
// thread-safe once made.
class Recurrence {
  public:
    // Validates the spec's timing fields (cron, every, tz, start, end) and throws
    // InvalidArgument naming the field. `anchor` is the anchor of an `every` without `start`
    // (the schedule's first upsert); ignored otherwise.
    static Recurrence make(const ScheduleSpec& spec, TimePoint anchor);

    // The first occurrence strictly after `t`; nullopt when there is none before `end` (or
    // before the year 9999 ends).
    std::optional<TimePoint> after(TimePoint t) const;

  private:
    struct Impl;
    explicit Recurrence(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> impl_;
};

}  // namespace delayq::detail
