#pragma once

#include <optional>
#include <string>
#include <string_view>

// Payloads in JSON: text when it is valid UTF-8, else base64 (RFC 4648, with padding).
namespace delayq::server {

bool is_valid_utf8(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
// nullopt for text that is not canonical padded base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace delayq::server
