#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "delayq/types.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The calls and replies of the scripts that change a message by id: cancel.lua, reschedule.lua,
// and the dead-letter scripts dead_requeue.lua and dead_purge.lua. Contracts in their headers.
namespace delayq::detail::manage_codec {

CancelResult decode_cancel(const Reply& reply);

// Due at `at_ms` (unix ms) or, without it, `delay` from now; throws InvalidArgument.
ScriptArgs encode_reschedule(std::string_view id, std::optional<std::int64_t> at_ms,
                             std::int64_t delay_ms);
RescheduleResult decode_reschedule(const Reply& reply);

// The given ids (up to kMaxBatch), or without ids the oldest `limit`; throws InvalidArgument.
ScriptArgs encode_dead(std::span<const std::string> ids, std::size_t limit);
struct DeadAnswer {
    std::size_t moved = 0;
    std::size_t left = 0;  // dead letters left in the set
};
DeadAnswer decode_dead(const Reply& reply);

}  // namespace delayq::detail::manage_codec
