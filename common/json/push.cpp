#include "json/push.hpp"

#include <cstdint>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <string>
#include <vector>

namespace delayq::json {
namespace {

std::string_view status_name(PushSetStatus status) {
    switch (status) {
        case PushSetStatus::kCreated:
            return "created";
        case PushSetStatus::kUpdated:
            return "updated";
        case PushSetStatus::kUnchanged:
            return "unchanged";
    }
    return "created";
}

// The field of a list's item, as a request names it: "headers[0].value".
std::string push_item_name(const std::string& list, std::size_t i) {
    return list + "[" + std::to_string(i) + "]";
}

[[noreturn]] void unknown_item_field(const std::string& item, const std::string& key) {
    throw InvalidArgument(item + ": unknown field \"" + key + "\"");
}

// {"name", "value"}, both required. An error names the item and the member, never the value:
// it may be a credential.
PushHeader push_header_from_json(const Json& item, const std::string& field) {
    require_object(item, field);
    PushHeader header;
    bool has_name = false;
    bool has_value = false;
    for (const auto& [key, v] : item.items()) {
        if (key == "name") {
            header.name = string_field(v, field + ".name");
            has_name = true;
        } else if (key == "value") {
            header.value = string_field(v, field + ".value");
            has_value = true;
        } else {
            unknown_item_field(field, key);
        }
    }
    if (!has_name || !has_value) throw InvalidArgument(field + " needs a name and a value");
    return header;
}

// The list's length is bounded before its items are read.
const Json::array_t& push_list_field(const Json& value, const std::string& name, std::size_t max) {
    if (!value.is_array()) throw InvalidArgument(name + " must be an array");
    if (value.size() > max) {
        throw InvalidArgument(name + " holds at most " + std::to_string(max) + " entries");
    }
    return value.get_ref<const Json::array_t&>();
}

double push_rate_field(const Json& value, const std::string& name) {
    const double rate = value.is_number() ? value.get<double>() : -1;
    if (!(rate >= 0 && rate <= kMaxPushRate)) {
        throw InvalidArgument(name + " must be a number from 0 (no limit) to " +
                              std::to_string(static_cast<long long>(kMaxPushRate)) +
                              " (requests per second)");
    }
    return rate;
}

}  // namespace

Json push_target_json(const std::string& queue, const PushTargetInfo& info) {
    Json last = nullptr;
    if (info.last) {
        last = Json{{"at_ms", unix_ms(info.last->at)},
                    {"status", info.last->status},
                    {"error", info.last->error}};
    }
    return Json{{"queue", queue},
                {"url", info.url},
                {"method", std::string(to_string(info.method))},
                {"content_type", info.content_type},
                {"header_names", info.header_names},
                {"request_timeout_ms", info.request_timeout.count()},
                {"max_in_flight", info.max_in_flight},
                {"rate", info.rate},
                {"secrets", info.secrets},
                {"updated_ms", unix_ms(info.updated)},
                {"last", std::move(last)}};
}

Json push_set_json(PushSetStatus status) {
    return Json{{"status", std::string(status_name(status))}};
}

PushTarget push_target_from_json(const Json& body) {
    require_object(body, "a push target");
    PushTarget target;
    bool has_url = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "url") {
            target.url = string_field(v, key);
            has_url = true;
        } else if (key == "method") {
            const auto method = parse_push_method(string_field(v, key));
            if (!method) throw InvalidArgument("method must be \"POST\", \"PUT\" or \"PATCH\"");
            target.method = *method;
        } else if (key == "content_type") {
            target.content_type = string_field(v, key);
        } else if (key == "headers") {
            const Json::array_t& items = push_list_field(v, key, kMaxPushHeaders);
            for (std::size_t i = 0; i < items.size(); ++i) {
                target.headers.push_back(push_header_from_json(items[i], push_item_name(key, i)));
            }
        } else if (key == "request_timeout_ms") {
            const std::uint64_t ms =
                count_field(v, key, static_cast<std::uint64_t>(kMinPushRequestTimeout.count()),
                            static_cast<std::uint64_t>(kMaxPushRequestTimeout.count()));
            target.request_timeout = Duration(static_cast<Duration::rep>(ms));
        } else if (key == "max_in_flight") {
            target.max_in_flight = count_field(v, key, 1, kMaxPushInFlight);
        } else if (key == "rate") {
            target.rate = push_rate_field(v, key);
        } else if (key == "secrets") {
            const Json::array_t& items = push_list_field(v, key, kMaxPushSecrets);
            for (std::size_t i = 0; i < items.size(); ++i) {
                target.secrets.push_back(string_field(items[i], push_item_name(key, i)));
            }
        } else {
            unknown_field(key);
        }
    }
    if (!has_url) throw InvalidArgument("url is required: where the requests go");
    return target;
}

}  // namespace delayq::json
