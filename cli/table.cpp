#include "table.hpp"

#include <algorithm>
#include <cstdio>

#include "json/payload.hpp"

namespace delayq::cli {

Table::Table(std::vector<std::string> headers) {
    colours_.emplace_back(headers.size(), Colour::kBold);
    rows_.push_back(std::move(headers));
}

void Table::add(std::vector<std::string> row, std::vector<Colour> colours) {
    colours.resize(row.size(), Colour::kNone);
    rows_.push_back(std::move(row));
    colours_.push_back(std::move(colours));
}

std::string Table::render(bool colour) const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t i = 0; i < row.size(); ++i) {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    std::string out;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const auto& row = rows_[r];
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += colour ? paint(row[i], colours_[r][i]) : row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

std::string preview(std::string_view payload, std::size_t max) {
    std::string out;
    for (char ch : payload) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += ch;
        }
        if (out.size() >= max) {
            out.resize(max);
            out += "...";
            break;
        }
    }
    return out;
}

std::string payload_text(std::string_view payload) {
    if (json::is_valid_utf8(payload)) return std::string(payload);
    return std::to_string(payload.size()) +
           " bytes, not UTF-8; base64: " + json::base64_encode(payload);
}

}  // namespace delayq::cli
