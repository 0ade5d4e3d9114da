#include "json/message.hpp"

#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>
#include <string>

#include "json/fields.hpp"
#include "json/payload.hpp"
#include "json/text.hpp"

namespace delayq::json {
namespace {

[[noreturn]] void bad(const std::string& what) { throw InvalidArgument(what); }

}  // namespace

Message parse_message(const Json& body, const SendOptions& defaults) {
    if (!body.is_object()) bad("a message must be a JSON object");
    Message m;
    m.options = defaults;
    bool has_payload = false;
    bool has_delay = false;
    bool has_at = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "payload" || key == "payload_base64") {
            if (has_payload) bad("give payload or payload_base64, not both");
            m.payload = payload_field(v, key);
            has_payload = true;
        } else if (key == "delay") {
            m.options.delay = duration_field(v, key);
            m.options.at.reset();
            has_delay = true;
        } else if (key == "at") {
            m.options.at = time_field(v, key);
            m.options.delay = Duration(0);
            has_at = true;
        } else if (key == "id") {
            m.options.id = string_field(v, key);
        } else if (key == "max_attempts") {
            m.options.max_attempts = static_cast<int>(count_field(v, key, 0, kMaxAttempts));
        } else if (key == "expire_after") {
            m.options.expire_after = duration_field(v, key);
        } else {
            unknown_field(key);
        }
    }
    if (!has_payload) bad("a message needs payload or payload_base64");
    if (has_delay && has_at) bad("give delay or at, not both");
    return m;
}

std::vector<Message> parse_batch(const Json& body) {
    if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array() ||
        body.size() != 1) {
        bad("a batch is {\"messages\": [...]}");
    }
    const Json& list = body["messages"];
    if (list.empty() || list.size() > kMaxBatch) {
        bad("a batch holds 1 to " + std::to_string(kMaxBatch) + " messages");
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

RescheduleRequest parse_reschedule(const Json& body) {
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

Json message_info_json(const MessageInfo& info) {
    Json out = {{"id", info.id},
                {"state", std::string(to_string(info.state))},
                {"due_ms", unix_ms(info.due)},
                {"lease_deadline_ms", optional_ms(info.lease_deadline)},
                {"dead_at_ms", optional_ms(info.dead_at)},
                {"expire_at_ms", optional_ms(info.expire_at)},
                {"attempts", info.attempts},
                {"max_attempts", info.max_attempts}};
    if (!info.dead_reason.empty()) out["dead_reason"] = info.dead_reason;
    if (!info.last_error.empty()) out["last_error"] = info.last_error;
    put_payload(out, info.payload);
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

void append_delivery(std::string& out, const Delivery& d, std::optional<std::string_view> lease) {
    out.append(R"({"id":)");
    append_json_string(out, d.id());
    if (lease) {
        out.append(R"(,"lease":)");
        append_json_string(out, *lease);
    }
    append_payload(out, d.payload());
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

}  // namespace delayq::json
