#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "json/fields.hpp"

// Payloads in JSON: text when the bytes are valid UTF-8 (JSON strings cannot carry anything
// else), else base64 (RFC 4648, standard alphabet, padded). Exactly one of "payload" and
// "payload_base64" is written.
namespace delayq::json {

bool is_valid_utf8(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
// nullopt for text that is not canonical padded base64, so that one payload has one spelling.
std::optional<std::string> base64_decode(std::string_view text);

// The bytes of a "payload" (a string) or "payload_base64" (`key` says which) field; throws
// InvalidArgument naming the field.
std::string payload_field(const Json& value, const std::string& key);

// Sets "payload" or "payload_base64".
void put_payload(Json& out, const std::string& payload);
// Appends ,"payload":... or ,"payload_base64":"..." to an object being written as text.
void append_payload(std::string& out, std::string_view payload);

}  // namespace delayq::json
