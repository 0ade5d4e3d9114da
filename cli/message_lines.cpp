#include "message_lines.hpp"

#include <delayq/error.hpp>
#include <delayq/validate.hpp>
#include <exception>
#include <string>

#include "errors.hpp"
#include "json/message.hpp"
#include "json/parse.hpp"

namespace delayq::cli {
namespace {

Message parse_line(std::string_view text, const SendOptions& defaults) {
    // The service's bounds and rules: a key given twice is refused, not last-wins.
    return json::parse_message(json::parse_json(text), defaults);
}

// "line N: " before what is wrong with a line.
[[noreturn]] void bad_line(std::size_t line, const std::exception& e) {
    throw UsageError("line " + std::to_string(line) + ": " + e.what());
}

}  // namespace

std::vector<MessageLine> parse_message_lines(std::string_view input, const SendOptions& defaults,
                                             const QueueOptions& queue) {
    std::vector<MessageLine> out;
    std::size_t line_no = 0;
    while (!input.empty()) {
        ++line_no;
        const auto nl = input.find('\n');
        std::string_view line = input.substr(0, nl);
        input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        try {
            MessageLine parsed{line_no, parse_line(line, defaults)};
            validate_message(parsed.message.payload, parsed.message.options, queue);
            out.push_back(std::move(parsed));
        } catch (const UsageError& e) {
            bad_line(line_no, e);
        } catch (const InvalidArgument& e) {
            bad_line(line_no, e);
        }
    }
    return out;
}

void check_due_times(const std::vector<MessageLine>& lines, TimePoint latest_send) {
    for (const MessageLine& l : lines) {
        try {
            validate_due(l.message.options, latest_send);
        } catch (const InvalidArgument& e) {
            bad_line(l.line, e);
        }
    }
}

}  // namespace delayq::cli
