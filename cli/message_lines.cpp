#include "message_lines.hpp"

#include <delayq/error.hpp>
#include <delayq/validate.hpp>
#include <exception>
#include <limits>
#include <string>

#include "api/json_parse.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

std::chrono::milliseconds duration_field(const Json& value, std::string_view name) {
    if (value.is_number_integer()) {
        if (value.get<long long>() < 0) {
            throw UsageError("\"" + std::string(name) + "\" must not be negative");
        }
        return duration_arg(std::to_string(value.get<long long>()));
    }
    if (!value.is_string()) {
        throw UsageError("\"" + std::string(name) +
                         "\" must be a duration string like \"30s\" or integer milliseconds");
    }
    return duration_arg(value.get<std::string>());
}

TimePoint time_field(const Json& value) {
    if (value.is_number_integer()) {
        if (value.get<long long>() < 0) throw UsageError("\"at\" must not be before 1970");
        return time_arg(std::to_string(value.get<long long>()));
    }
    if (!value.is_string()) {
        throw UsageError("\"at\" must be an RFC 3339 time string or integer unix milliseconds");
    }
    return time_arg(value.get<std::string>());
}

Message parse_line(std::string_view text, const SendOptions& defaults) {
    Json j;
    try {
        // The service's bounds and rules: a key given twice is refused, not last-wins.
        j = server::parse_json(text);
    } catch (const InvalidArgument& e) {
        throw UsageError(e.what());
    }
    if (!j.is_object()) throw UsageError("expected a JSON object");
    Message m;
    m.options = defaults;
    bool has_payload = false;
    for (const auto& [key, value] : j.items()) {
        if (key == "payload") {
            if (!value.is_string()) throw UsageError("\"payload\" must be a string");
            m.payload = value.get<std::string>();
            has_payload = true;
        } else if (key == "payload_base64") {
            auto bytes = value.is_string() ? base64_decode(value.get<std::string>()) : std::nullopt;
            if (!bytes) throw UsageError("\"payload_base64\" is not valid base64");
            m.payload = std::move(*bytes);
            if (has_payload) throw UsageError("give either \"payload\" or \"payload_base64\"");
            has_payload = true;
        } else if (key == "delay") {
            m.options.delay = duration_field(value, key);
            m.options.at.reset();
        } else if (key == "at") {
            m.options.at = time_field(value);
            m.options.delay = std::chrono::milliseconds(0);
        } else if (key == "id") {
            if (!value.is_string()) throw UsageError("\"id\" must be a string");
            m.options.id = value.get<std::string>();
        } else if (key == "max_attempts") {
            // The range is the library's to check; this only has to fit in an int first.
            if (!value.is_number_integer() || value.get<long long>() < 1 ||
                value.get<long long>() > std::numeric_limits<int>::max()) {
                throw UsageError("\"max_attempts\" must be a positive integer");
            }
            m.options.max_attempts = value.get<int>();
        } else if (key == "expire_after") {
            m.options.expire_after = duration_field(value, key);
        } else {
            throw UsageError("unknown field \"" + key +
                             "\" (known: payload, payload_base64, delay, at, id, max_attempts, "
                             "expire_after)");
        }
    }
    if (!has_payload) throw UsageError("\"payload\" or \"payload_base64\" is missing");
    if (j.contains("delay") && j.contains("at")) {
        throw UsageError("give either \"delay\" or \"at\", not both");
    }
    return m;
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
