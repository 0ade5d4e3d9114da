#include "codec/common.hpp"

#include <charconv>
#include <string>

#include "delayq/error.hpp"
#include "validate.hpp"

namespace delayq::detail {

std::int64_t decimal(std::string_view text, const char* what) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) {
        throw ServerError(std::string(what) + " is not an integer: " + std::string(text));
    }
    return n;
}

ScriptArgs encode_id(std::string_view id) {
    validate_id(id);
    ScriptArgs args;
    args.add(id);
    return args;
}

}  // namespace delayq::detail
