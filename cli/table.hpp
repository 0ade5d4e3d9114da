#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "colour.hpp"

namespace delayq::cli {

// Columns padded to their widest cell, for people (scripts use --json).
class Table {
  public:
    explicit Table(std::vector<std::string> headers);
    // `colours`: one per cell (or fewer: the rest get none), used only when rendering in colour.
    void add(std::vector<std::string> row, std::vector<Colour> colours = {});
    // In colour, the headers are bold and cells get their colours; the padding is the same.
    std::string render(bool colour) const;
    bool empty() const { return rows_.size() <= 1; }  // the headers only

  private:
    std::vector<std::vector<std::string>> rows_;
    std::vector<std::vector<Colour>> colours_;
};

// The payload as one short line: control characters and non-ASCII bytes escaped, cut at
// `max` characters.
std::string preview(std::string_view payload, std::size_t max = 40);
// The whole payload for one message's or schedule's details: as it is when it is UTF-8, else
// its size and base64.
std::string payload_text(std::string_view payload);

}  // namespace delayq::cli
