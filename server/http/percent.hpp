#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace delayq::server::http {

// Percent-decodes (RFC 3986) a path segment; with `plus_is_space`, '+' is a space as in a query.
// nullopt for a '%' not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space = false);

}  // namespace delayq::server::http
