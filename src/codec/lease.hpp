#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/options.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The calls and replies of the scripts that end or renew leases: ack.lua, extend.lua,
// release.lua (1 to kMaxBatch leases each) and nack.lua (one). Contracts in the scripts' headers.
namespace delayq::detail::lease_codec {

// Each validates and builds its call (throws InvalidArgument), or reads its reply into one
// LeaseResult per lease, in order (throws ServerError on another shape).
ScriptArgs encode_ack(std::span<const Lease> leases);
std::vector<LeaseResult> decode_ack(const Reply& reply, std::size_t leases);

ScriptArgs encode_extend(std::span<const Lease> leases, Duration visibility);
std::vector<LeaseResult> decode_extend(const Reply& reply);

ScriptArgs encode_release(std::span<const Lease> leases);
std::vector<LeaseResult> decode_release(const Reply& reply);

// A nack: retry after `delay`, or without one after the queue's backoff for the attempts the
// message had; or (dead_now) a reject.
struct NackCall {
    std::optional<Duration> delay;
    std::string_view error;
    bool dead_now = false;
};
ScriptArgs encode_nack(const Lease& lease, const NackCall& call);
LeaseResult decode_nack(const Reply& reply);

}  // namespace delayq::detail::lease_codec
