#pragma once

#include <cstddef>
#include <delayq/delivery.hpp>
#include <delayq/options.hpp>
#include <delayq/types.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/fields.hpp"

// The JSON shapes of messages (docs/json.md): what a send takes (the service's bodies, the
// CLI's `send --file` lines), what a send answers, a message as inspection shows it, and a
// delivery. Parsing throws InvalidArgument naming the field; unknown fields are refused, so
// that a misspelt option is not silently ignored.
namespace delayq::json {

// {"payload": "text"} or {"payload_base64": "..."}, and optional "delay" (a duration: "250ms",
// "1h30m" or integer ms), "at" (RFC 3339 or unix ms; not with "delay"), "id", "max_attempts"
// (0: the queue's setting), "expire_after". The fields given replace those of `defaults`.
Message parse_message(const Json& body, const SendOptions& defaults = {});

// {"messages": [...]} of 1 to kMaxBatch; an error names the index of the first bad one.
std::vector<Message> parse_batch(const Json& body);

// A reschedule: {"delay": DURATION} or {"at": TIME}, exactly one.
struct RescheduleRequest {
    std::optional<Duration> delay;
    std::optional<TimePoint> at;
};
RescheduleRequest parse_reschedule(const Json& body);

// {"id", "due_ms", "duplicate"}, as text (text.hpp: a batch's thousand of them).
std::string send_result_text(const SendResult& result);
// {"results": [{"id", "due_ms", "duplicate"}...]}
std::string send_results_text(const std::vector<SendResult>& results);

// A message as inspection sees it: {"id", "state", "due_ms", "lease_deadline_ms",
// "dead_at_ms", "expire_at_ms" (null when not set), "attempts", "max_attempts", "dead_reason"
// and "last_error" (when not empty), "payload" or "payload_base64"}.
Json message_info_json(const MessageInfo& info);

// Appends {"id", "lease" (when given), "payload" or "payload_base64", "attempt",
// "max_attempts", "due_ms", "delivered_ms", "last_error"} as text. The service gives the lease
// as its client gets it (sealed: auth/lease_seal.hpp); the CLI acks for its reader and gives none.
void append_delivery(std::string& out, const Delivery& delivery,
                     std::optional<std::string_view> lease);

}  // namespace delayq::json
