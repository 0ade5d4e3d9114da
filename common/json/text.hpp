#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "json/fields.hpp"

// JSON written straight as text, for what the server writes often and in bulk (a batch's
// results, the access log): building an nlohmann document of a thousand small objects and
// serializing it was a third of a batch send's CPU in the server.
namespace delayq::json {

// A document on one line. Strings that are not valid UTF-8 (a command's stderr kept as a last
// error, say) are repaired with U+FFFD rather than refused: writing must never fail.
std::string to_text(const Json& value);

// `text` as a JSON string, quotes included. Bytes that are not UTF-8 become U+FFFD, as
// nlohmann-json's error_handler_t::replace writes them.
void append_json_string(std::string& out, std::string_view text);

// {"KEY":[...]} of `count` items, item i written by append(out, i); `bytes_each` is a guess
// of an item's length, to allocate once.
template <class Append>
std::string json_list_text(std::string_view key, std::size_t count, std::size_t bytes_each,
                           Append append) {
    std::string out;
    out.reserve(key.size() + 8 + count * (bytes_each + 1));
    out.append(R"({")");
    out.append(key);
    out.append(R"(":[)");
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) out.push_back(',');
        append(out, i);
    }
    out.append("]}");
    return out;
}

}  // namespace delayq::json
