#pragma once

#include <cstddef>
#include <delayq/options.hpp>
#include <delayq/types.hpp>
#include <string_view>
#include <vector>

namespace delayq::cli {

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
// replaces both of the defaults'). Blank lines are skipped. Each message is checked with the
// library's own validate_message, so that a file is refused whole before any of it is sent.
// Throws UsageError naming the line.
std::vector<MessageLine> parse_message_lines(std::string_view input, const SendOptions& defaults,
                                             const QueueOptions& queue);

// The checks of every line that need the Redis server's clock (validate_due), against the
// latest time the messages may be sent. Throws UsageError naming the line.
void check_due_times(const std::vector<MessageLine>& lines, TimePoint latest_send);

}  // namespace delayq::cli
