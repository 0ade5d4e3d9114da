#pragma once

#include <cstddef>
#include <delayq/options.hpp>
#include <string_view>
#include <vector>

namespace delayq::cli {

// Checks an id as the library will (so that a whole file can be checked before anything of it
// is sent). Throws UsageError.
void check_id(std::string_view id);
// Checks what the library checks before writing, except what needs the server's clock.
void check_message(const Message& message, std::size_t max_payload_bytes);

struct MessageLine {
    std::size_t line = 0;  // 1-based line number in the input
    Message message;
};

// Parses JSON lines, one message per line:
//   {"payload": "text", "delay": "30s", "id": "order-42"}
//   {"payload_base64": "AAEC/w==", "at": "2030-01-02T03:04:05Z", "max_attempts": 3,
//    "expire_after": "1h"}
// "delay" and "expire_after" are durations (or integer milliseconds), "at" is RFC 3339 (or unix
// milliseconds). Fields a line lacks come from `defaults` (an "at" or "delay" of the line
// replaces both of the defaults'). Blank lines are skipped. Throws UsageError naming the line.
std::vector<MessageLine> parse_message_lines(std::string_view input, const SendOptions& defaults,
                                             std::size_t max_payload_bytes);

}  // namespace delayq::cli
