#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "delayq/options.hpp"
#include "delayq/types.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// send.lua's call and reply (the contract is in the script's header).
namespace delayq::detail::send_codec {

// A message to send, by reference: the single-message path does not copy the payload.
struct MessageRef {
    std::string_view payload;
    const SendOptions* options = nullptr;
};

// What a queue's sends take from its options.
struct Defaults {
    std::size_t max_payload_bytes = 0;
};

// One call of send.lua: its arguments (validated; they view the payloads) and its runs of
// messages, which the reply is read by.
struct Call {
    struct Run {
        std::size_t end = 0;   // one past the run's last message
        bool own_due = false;  // each message states its due time (send.lua)
    };
    ScriptArgs args;
    std::vector<Run> runs;
};

// Validates 1..kMaxBatch messages and builds the call; throws InvalidArgument.
Call encode(std::span<const MessageRef> messages, const Defaults& defaults);

// One result per message, in order; throws ServerError on a reply of another shape.
std::vector<SendResult> decode(const Reply& reply, std::span<const MessageRef> messages,
                               const Call& call);

// Whether the script may refuse a message that passed the client's checks: an expiry measured
// from the Redis clock's now against an absolute due time, or a due time so far off that the
// Redis clock decides whether it falls after 9999. Such a refusal fails its whole call.
bool script_may_refuse(const SendOptions& options);

}  // namespace delayq::detail::send_codec
