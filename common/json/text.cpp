#include "json/text.hpp"

namespace delayq::json {
namespace {

// Printable ASCII without '"' and '\': nearly every id, target, address and token name.
bool plain(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    }
    return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    if (plain(text)) {
        out.push_back('"');
        out.append(text);
        out.push_back('"');
        return;
    }
    // Escapes, control characters and bytes that are not UTF-8, as nlohmann-json writes them.
    out.append(to_text(Json(std::string(text))));
}

std::string to_text(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace delayq::json
