#include "api/json_fields.hpp"

#include <delayq/error.hpp>
#include <delayq/time.hpp>

namespace delayq::server {

Duration duration_field(const nlohmann::json& value, const std::string& name) {
    if (value.is_string()) {
        try {
            return parse_duration(value.get<std::string>());
        } catch (const InvalidArgument& e) {
            throw InvalidArgument(name + ": " + e.what());
        }
    }
    if (value.is_number_unsigned()) {
        return parse_duration(std::to_string(value.get<std::uint64_t>()));
    }
    throw InvalidArgument(name +
                          " must be a duration (\"250ms\", \"1h30m\") or whole milliseconds");
}

std::uint64_t count_field(const nlohmann::json& value, const std::string& name, std::uint64_t min,
                          std::uint64_t max) {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() < min ||
        value.get<std::uint64_t>() > max) {
        throw InvalidArgument(name + " must be a whole number from " + std::to_string(min) +
                              " to " + std::to_string(max));
    }
    return value.get<std::uint64_t>();
}

std::string string_field(const nlohmann::json& value, const std::string& name) {
    if (!value.is_string()) throw InvalidArgument(name + " must be a string");
    return value.get<std::string>();
}

void require_object(const nlohmann::json& body, const std::string& what) {
    if (!body.is_object()) throw InvalidArgument(what + " must be a JSON object");
}

void unknown_field(const std::string& key) {
    throw InvalidArgument("unknown field \"" + key + "\"");
}

}  // namespace delayq::server
