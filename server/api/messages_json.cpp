#include "api/messages_json.hpp"

#include <delayq/error.hpp>
#include <delayq/time.hpp>
#include <limits>
#include <string>

#include "api/json_fields.hpp"
#include "api/json_text.hpp"
#include "api/payload.hpp"

namespace delayq::server {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what) { throw InvalidArgument(what); }

// A duration field: the library's grammar as a string, or a non-negative integer of ms.
Duration duration_field(const json& v, const char* name) {
    if (v.is_string()) return parse_duration(v.get<std::string>());
    if (v.is_number_unsigned()) return parse_duration(std::to_string(v.get<std::uint64_t>()));
    bad(std::string(name) + " must be a duration (\"250ms\", \"1h30m\") or whole milliseconds");
}

// A time field: RFC 3339 as a string, or unix ms as a non-negative integer.
TimePoint time_field(const json& v, const char* name) {
    if (v.is_string()) return parse_time(v.get<std::string>());
    if (v.is_number_unsigned()) return parse_time(std::to_string(v.get<std::uint64_t>()));
    bad(std::string(name) + " must be an RFC 3339 time or unix milliseconds");
}

}  // namespace

Message parse_message(const json& body) {
    if (!body.is_object()) bad("a message must be a JSON object");
    Message m;
    bool has_payload = false;
    bool has_delay = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "payload" || key == "payload_base64") {
            if (has_payload) bad("give payload or payload_base64, not both");
            if (!v.is_string()) bad(key + " must be a string");
            has_payload = true;
            if (key == "payload") {
                m.payload = v.get<std::string>();
            } else {
                auto bytes = base64_decode(v.get<std::string>());
                if (!bytes) bad("payload_base64 is not base64 (RFC 4648, padded)");
                m.payload = std::move(*bytes);
            }
        } else if (key == "delay") {
            m.options.delay = duration_field(v, "delay");
            has_delay = true;
        } else if (key == "at") {
            m.options.at = time_field(v, "at");
        } else if (key == "id") {
            if (!v.is_string()) bad("id must be a string");
            m.options.id = v.get<std::string>();
        } else if (key == "max_attempts") {
            if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 1'000'000) {
                bad("max_attempts must be a whole number from 0 (the queue's setting)");
            }
            m.options.max_attempts = v.get<int>();
        } else if (key == "expire_after") {
            m.options.expire_after = duration_field(v, "expire_after");
        } else {
            bad("unknown field \"" + key + "\"");
        }
    }
    if (!has_payload) bad("a message needs payload or payload_base64");
    if (has_delay && m.options.at) bad("give delay or at, not both");
    return m;
}

std::vector<Message> parse_batch(const json& body) {
    if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array() ||
        body.size() != 1) {
        bad("a batch is {\"messages\": [...]}");
    }
    const json& list = body["messages"];
    if (list.empty() || list.size() > kMaxBatchMessages) {
        bad("a batch holds 1 to " + std::to_string(kMaxBatchMessages) + " messages");
    }
    std::vector<Message> out;
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        try {
            out.push_back(parse_message(list[i]));
        } catch (const InvalidArgument& e) {
            bad("messages[" + std::to_string(i) + "]: " + e.what());
        }
    }
    return out;
}

RescheduleRequest parse_reschedule(const json& body) {
    if (!body.is_object() || body.size() != 1 || !(body.contains("delay") || body.contains("at"))) {
        bad("a reschedule is {\"delay\": DURATION} or {\"at\": TIME}");
    }
    RescheduleRequest out;
    if (body.contains("delay")) {
        out.delay = duration_field(body["delay"], "delay");
    } else {
        out.at = time_field(body["at"], "at");
    }
    return out;
}

json message_info_json(const MessageInfo& info) {
    const auto optional_ms = [](const std::optional<TimePoint>& t) -> json {
        return t ? json(unix_ms(*t)) : json(nullptr);
    };
    json out = {{"id", info.id},
                {"state", std::string(to_string(info.state))},
                {"due_ms", unix_ms(info.due)},
                {"lease_deadline_ms", optional_ms(info.lease_deadline)},
                {"dead_at_ms", optional_ms(info.dead_at)},
                {"expire_at_ms", optional_ms(info.expire_at)},
                {"attempts", info.attempts},
                {"max_attempts", info.max_attempts}};
    if (!info.dead_reason.empty()) out["dead_reason"] = info.dead_reason;
    if (!info.last_error.empty()) out["last_error"] = info.last_error;
    if (is_valid_utf8(info.payload)) {
        out["payload"] = info.payload;
    } else {
        out["payload_base64"] = base64_encode(info.payload);
    }
    return out;
}

namespace {

void append_send_result(std::string& out, const SendResult& r) {
    out.append(R"({"due_ms":)");
    out.append(std::to_string(unix_ms(r.due)));
    out.append(r.duplicate ? R"(,"duplicate":true,"id":)" : R"(,"duplicate":false,"id":)");
    append_json_string(out, r.id);
    out.push_back('}');
}

}  // namespace

std::string send_result_text(const SendResult& result) {
    std::string out;
    append_send_result(out, result);
    return out;
}

std::string send_results_text(const std::vector<SendResult>& results) {
    // {"due_ms":13 digits,"duplicate":false,"id":"14 hex"}: 63 bytes.
    return json_list_text("results", results.size(), 63, [&](std::string& out, std::size_t i) {
        append_send_result(out, results[i]);
    });
}

void append_delivery(std::string& out, const Delivery& d, std::string_view lease) {
    out.append(R"({"id":)");
    append_json_string(out, d.id());
    out.append(R"(,"lease":)");
    append_json_string(out, lease);
    if (is_valid_utf8(d.payload())) {
        out.append(R"(,"payload":)");
        append_json_string(out, d.payload());
    } else {
        out.append(R"(,"payload_base64":")");
        out.append(base64_encode(d.payload()));
        out.push_back('"');
    }
    out.append(R"(,"attempt":)");
    out.append(std::to_string(d.attempt()));
    out.append(R"(,"max_attempts":)");
    out.append(std::to_string(d.max_attempts()));
    out.append(R"(,"due_ms":)");
    out.append(std::to_string(unix_ms(d.due())));
    out.append(R"(,"delivered_ms":)");
    out.append(std::to_string(unix_ms(d.delivered_at())));
    out.append(R"(,"last_error":)");
    append_json_string(out, d.last_error());
    out.push_back('}');
}

}  // namespace delayq::server
