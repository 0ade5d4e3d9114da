#include "delayq/queue_pattern.hpp"

namespace delayq {

std::optional<QueuePattern> QueuePattern::parse(std::string_view text) {
    if (text.empty()) return std::nullopt;
    QueuePattern p;
    p.text_ = text;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        // What validate_queue_name refuses in a name (src/validate.cpp).
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7f || c == '{' || c == '}') return std::nullopt;
        if (c == '\\') {
            if (i + 1 == text.size() || (text[i + 1] != '*' && text[i + 1] != '\\')) {
                return std::nullopt;
            }
            p.literal_ += text[++i];
        } else if (c == '*') {
            // Only a trailing star is a wildcard: `a*b` would promise a glob this is not.
            if (i + 1 != text.size()) return std::nullopt;
            p.prefix_ = true;
        } else {
            p.literal_ += c;
        }
    }
    return p;
}

bool QueuePattern::matches(std::string_view queue) const {
    if (prefix_) return queue.starts_with(literal_);
    return queue == literal_;
}

}  // namespace delayq
