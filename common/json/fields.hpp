#pragma once

#include <cstdint>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// Fields of JSON documents as every front end reads and writes them. Each reader throws
// InvalidArgument naming the field (the service answers 400, the CLI exits 2; nothing written).
namespace delayq::json {

using Json = nlohmann::json;

// A duration: the library's grammar as a string ("250ms", "1h30m") or whole milliseconds.
Duration duration_field(const Json& value, const std::string& name);

// A time: RFC 3339 as a string, or whole unix milliseconds.
TimePoint time_field(const Json& value, const std::string& name);

// A whole number from `min` to `max`.
std::uint64_t count_field(const Json& value, const std::string& name, std::uint64_t min,
                          std::uint64_t max);

double number_field(const Json& value, const std::string& name);

std::string string_field(const Json& value, const std::string& name);

bool bool_field(const Json& value, const std::string& name);

// The body must be a JSON object; `what` names it in the error ("a lease request").
void require_object(const Json& body, const std::string& what);

[[noreturn]] void unknown_field(const std::string& key);

inline std::int64_t unix_ms(TimePoint t) { return t.time_since_epoch().count(); }

// Unix milliseconds, or null when there is no such time.
inline Json optional_ms(const std::optional<TimePoint>& t) {
    return t ? Json(unix_ms(*t)) : Json(nullptr);
}

}  // namespace delayq::json
