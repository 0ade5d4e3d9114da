#pragma once

#include <delayq/delivery.hpp>
#include <delayq/options.hpp>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

// The JSON shapes of messages in the API (docs/http.md): what a send takes, what a send and a
// lease answer. Parsing throws InvalidArgument (a 400, nothing written) naming the field.
namespace delayq::server {

// {"payload": "text"} or {"payload_base64": "..."}, and optional "delay" (a duration: "250ms",
// "1h30m" or integer ms), "at" (RFC 3339 or unix ms), "id", "max_attempts", "expire_after".
// Unknown fields are refused, so that a misspelt option is not silently ignored.
Message parse_message(const nlohmann::json& body);

// {"messages": [...]} of 1 to kMaxBatchMessages; an error names the index of the first bad one.
std::vector<Message> parse_batch(const nlohmann::json& body);
inline constexpr std::size_t kMaxBatchMessages = 1000;

// A reschedule's body: {"delay": DURATION} or {"at": TIME}, exactly one.
struct RescheduleRequest {
    std::optional<Duration> delay;
    std::optional<TimePoint> at;
};
RescheduleRequest parse_reschedule(const nlohmann::json& body);

// {"id", "due_ms", "duplicate"}, as text (json_text.hpp: a batch's thousand of them).
std::string send_result_text(const SendResult& result);
// {"results": [{"id", "due_ms", "duplicate"}...]}
std::string send_results_text(const std::vector<SendResult>& results);

// A message as inspection sees it: {"id", "state", "due_ms", "lease_deadline_ms",
// "dead_at_ms", "expire_at_ms" (null when not set), "attempts", "max_attempts", "dead_reason"
// and "last_error" (when not empty), "payload" or "payload_base64"}: the CLI's --json shape.
nlohmann::json message_info_json(const MessageInfo& info);

// Appends {"id", "lease", "payload" (or "payload_base64" when not UTF-8), "attempt",
// "max_attempts", "due_ms", "delivered_ms", "last_error"} as text (json_text.hpp); `lease` is
// the delivery's lease as the client gets it (sealed: auth/lease_seal.hpp).
void append_delivery(std::string& out, const Delivery& delivery, std::string_view lease);

}  // namespace delayq::server
