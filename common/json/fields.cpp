#include "json/fields.hpp"

#include <delayq/error.hpp>
#include <delayq/time.hpp>

namespace delayq::json {

Duration duration_field(const Json& value, const std::string& name) {
    try {
        if (value.is_string()) return parse_duration(value.get<std::string>());
        if (value.is_number_unsigned()) {
            return parse_duration(std::to_string(value.get<std::uint64_t>()));
        }
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(name + ": " + e.what());
    }
    throw InvalidArgument(name +
                          " must be a duration (\"250ms\", \"1h30m\") or whole milliseconds");
}

TimePoint time_field(const Json& value, const std::string& name) {
    try {
        if (value.is_string()) return parse_time(value.get<std::string>());
        if (value.is_number_unsigned()) {
            return parse_time(std::to_string(value.get<std::uint64_t>()));
        }
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(name + ": " + e.what());
    }
    throw InvalidArgument(name + " must be an RFC 3339 time or whole unix milliseconds");
}

std::uint64_t count_field(const Json& value, const std::string& name, std::uint64_t min,
                          std::uint64_t max) {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() < min ||
        value.get<std::uint64_t>() > max) {
        throw InvalidArgument(name + " must be a whole number from " + std::to_string(min) +
                              " to " + std::to_string(max));
    }
    return value.get<std::uint64_t>();
}

double number_field(const Json& value, const std::string& name) {
    if (!value.is_number()) throw InvalidArgument(name + " must be a number");
    return value.get<double>();
}

std::string string_field(const Json& value, const std::string& name) {
    if (!value.is_string()) throw InvalidArgument(name + " must be a string");
    return value.get<std::string>();
}

bool bool_field(const Json& value, const std::string& name) {
    if (!value.is_boolean()) throw InvalidArgument(name + " must be true or false");
    return value.get<bool>();
}

void require_object(const Json& body, const std::string& what) {
    if (!body.is_object()) throw InvalidArgument(what + " must be a JSON object");
}

void unknown_field(const std::string& key) {
    throw InvalidArgument("unknown field \"" + key + "\"");
}

}  // namespace delayq::json
