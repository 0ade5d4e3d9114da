#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "delayq/push.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The calls and replies of the push scripts: push_set.lua, push_get.lua, push_read.lua,
// push_remove.lua, push_record.lua, push_lease.lua (contracts in their headers; the push hash's
// fields in lib/push.lua).
namespace delayq::detail::push_codec {

// Validates the target first (InvalidArgument); the arguments hold views of it.
ScriptArgs encode_set(const PushTarget& target);
struct SetAnswer {
    PushSetStatus status = PushSetStatus::kUnchanged;
    TimePoint now{};  // the Redis clock's, as the script saw it
};
SetAnswer decode_set(const Reply& reply);

std::optional<PushTargetInfo> decode_get(const Reply& reply);
// push_read's reply: the target with its header values and secrets.
std::optional<PushTargets::ForPusher> decode_read(const Reply& reply);

bool decode_remove(const Reply& reply);

ScriptArgs encode_record(int status, std::string_view error);

ScriptArgs encode_lease(std::size_t max_count);
PushLeases decode_lease(Reply reply, const std::string& queue);

}  // namespace delayq::detail::push_codec
