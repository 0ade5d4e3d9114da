#pragma once

#include <string>
#include <string_view>

// JSON written straight as text, for what the server writes often and in bulk (a batch's
// results, the access log): building an nlohmann document of a thousand small objects and
// serializing it was a third of a batch send's CPU in the server.
namespace delayq::server {

// `text` as a JSON string, quotes included. Bytes that are not UTF-8 become U+FFFD, as
// nlohmann-json's error_handler_t::replace writes them.
void append_json_string(std::string& out, std::string_view text);

}  // namespace delayq::server
