#include "metrics/text_format.hpp"

#include <charconv>
#include <cmath>

namespace delayq::server {

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string format_value(double value) {
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    if (std::isnan(value)) return "NaN";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, r.ptr);
}

void TextFormat::family(std::string_view name, std::string_view type, std::string_view help) {
    out_.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void TextFormat::sample(std::string_view name, Labels labels, double value) {
    sample(name, std::span<const Label>(labels.begin(), labels.size()), value);
}

void TextFormat::sample(std::string_view name, std::span<const Label> labels, double value) {
    out_.append(name);
    if (labels.size() > 0) {
        out_ += '{';
        bool first = true;
        for (const auto& [label, label_value] : labels) {
            if (!first) out_ += ',';
            first = false;
            out_.append(label).append("=\"").append(escape_label_value(label_value)).append("\"");
        }
        out_ += '}';
    }
    out_.append(" ").append(format_value(value)).append("\n");
}

}  // namespace delayq::server
