#pragma once

#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <string>

// Fields of request bodies as every route reads them; each throws InvalidArgument naming the
// field (a 400, nothing written).
namespace delayq::server {

// A duration: the library's grammar as a string ("250ms", "1h30m") or whole milliseconds.
Duration duration_field(const nlohmann::json& value, const std::string& name);

// A whole number from `min` to `max`.
std::uint64_t count_field(const nlohmann::json& value, const std::string& name, std::uint64_t min,
                          std::uint64_t max);

std::string string_field(const nlohmann::json& value, const std::string& name);

// The body must be a JSON object; `what` names it in the error ("a lease request").
void require_object(const nlohmann::json& body, const std::string& what);

[[noreturn]] void unknown_field(const std::string& key);

inline std::int64_t unix_ms(TimePoint t) { return t.time_since_epoch().count(); }

}  // namespace delayq::server
