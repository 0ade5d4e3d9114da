#include <algorithm>
#include <string>

#include "codec/schedule.hpp"
#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "delayq/schedules.hpp"
#include "delayq/time.hpp"
#include "schedule/recurrence.hpp"
#include "validate.hpp"

namespace delayq {
namespace {

[[noreturn]] void invalid(std::string_view field, const std::string& why) {
    throw InvalidArgument(std::string(field) + ": " + why);
}

}  // namespace

void validate_schedule(const ScheduleSpec& spec, std::size_t max_payload) {
    // The anchor of an `every` without start does not change what is valid.
    detail::Recurrence::make(spec, TimePoint{});
    if (spec.payload.size() > max_payload) {
        invalid("payload", std::to_string(spec.payload.size()) + " bytes is over the limit of " +
                               std::to_string(max_payload));
    }
    if (spec.max_attempts < 0 || spec.max_attempts > kMaxAttempts) {
        invalid("max_attempts", "must be from 1 to " + std::to_string(kMaxAttempts) +
                                    " (or 0 for the queue's setting)");
    }
    if (spec.expire_after.count() < 0 || spec.expire_after.count() >= kMaxTimeMs) {
        invalid("expire_after", format_duration(spec.expire_after) +
                                    " is not from 0 (never) to before the year 9999");
    }
    if (spec.max_runs > kMaxScheduleRuns) {
        invalid("max_runs",
                "must be at most " + std::to_string(kMaxScheduleRuns) + " (or 0 for no limit)");
    }
}

void validate_schedule_name(std::string_view name) {
    detail::validate_text(name, "schedule name", false, kMaxScheduleNameBytes);
}

std::string schedule_message_id(std::string_view name, TimePoint instant) {
    // The scripts append the instant to the same prefix.
    return detail::schedule_codec::id_prefix(name) +
           std::to_string(instant.time_since_epoch().count());
}

std::vector<TimePoint> next_occurrences(const ScheduleSpec& spec, TimePoint from, std::size_t count,
                                        TimePoint anchor) {
    // Only the timing decides the occurrences: a payload over some queue's limit does not.
    const auto recurrence = detail::Recurrence::make(spec, anchor);
    std::vector<TimePoint> out;
    out.reserve(std::min<std::size_t>(count, 1000));
    std::optional<TimePoint> t = from;
    while (out.size() < count && (t = recurrence.after(*t))) out.push_back(*t);
    return out;
}

}  // namespace delayq
