#pragma once

#include <optional>
#include <string_view>

#include "delayq/types.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The read-only scripts' calls and replies: get.lua, list.lua, stats.lua, timeline.lua. Contracts
// in the scripts' headers.
namespace delayq::detail::inspect_codec {

std::optional<MessageInfo> decode_get(const Reply& reply, std::string_view id);

ScriptArgs encode_list(State state, const PageRequest& page);  // throws InvalidArgument
MessagePage decode_list(const Reply& reply, State state);

QueueStats decode_stats(const Reply& reply);

// history_record.lua's reply: whether it wrote the point.
bool decode_record_history(const Reply& reply);
// Throws InvalidArgument for a time before 1970 or a limit outside 1 to kMaxBatch.
ScriptArgs encode_history(TimePoint since, std::size_t limit);
std::vector<QueueStats> decode_history(const Reply& reply);

ScriptArgs encode_timeline(Duration bucket, std::size_t buckets);  // throws InvalidArgument
Timeline decode_timeline(const Reply& reply, Duration bucket);

}  // namespace delayq::detail::inspect_codec
