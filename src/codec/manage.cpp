#include "codec/manage.hpp"

#include <algorithm>
#include <string>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "validate.hpp"

namespace delayq::detail::manage_codec {
namespace {

// reschedule.lua: {status, due_ms}.
constexpr std::size_t kRescheduleStatus = 0;
constexpr std::size_t kRescheduleDue = 1;
// dead_requeue.lua and dead_purge.lua: {moved, dead_left}.
constexpr std::size_t kDeadMoved = 0;
constexpr std::size_t kDeadLeft = 1;

}  // namespace

CancelResult decode_cancel(const Reply& reply) {
    const std::string& status = reply.as_string();
    if (status == "cancelled") return CancelResult::kCancelled;
    if (status == "in_flight") return CancelResult::kInFlight;
    if (status == "dead") return CancelResult::kDead;
    return CancelResult::kNotFound;
}

ScriptArgs encode_reschedule(std::string_view id, std::optional<std::int64_t> at_ms,
                             std::int64_t delay_ms) {
    validate_id(id);
    ScriptArgs args;
    args.add(id);
    if (at_ms) {
        args.add(*at_ms);
    } else {
        args.add(std::string_view{});
    }
    args.add(delay_ms);
    return args;
}

RescheduleResult decode_reschedule(const Reply& reply) {
    const std::string& status = reply.at(kRescheduleStatus).as_string();
    RescheduleResult out;
    out.due = unix_ms(reply.at(kRescheduleDue).as_int());
    if (status == "rescheduled") {
        out.status = RescheduleStatus::kRescheduled;
    } else if (status == "in_flight") {
        out.status = RescheduleStatus::kInFlight;
    } else if (status == "dead") {
        out.status = RescheduleStatus::kDead;
    }
    return out;
}

ScriptArgs encode_dead(std::span<const std::string> ids, std::size_t limit) {
    if (ids.size() > kMaxBatch || limit < 1 || limit > kMaxBatch) {
        throw InvalidArgument("1 to " + std::to_string(kMaxBatch) + " dead letters per call");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(std::max(limit, ids.size())));
    for (const auto& id : ids) {
        validate_id(id);
        args.add(id);
    }
    return args;
}

DeadAnswer decode_dead(const Reply& reply) {
    return DeadAnswer{static_cast<std::size_t>(reply.at(kDeadMoved).as_int()),
                      static_cast<std::size_t>(reply.at(kDeadLeft).as_int())};
}

}  // namespace delayq::detail::manage_codec
