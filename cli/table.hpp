#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace delayq::cli {

// Columns padded to their widest cell, for people (scripts use --json).
class Table {
  public:
    explicit Table(std::vector<std::string> headers);
    void add(std::vector<std::string> row);
    std::string render() const;
    bool empty() const { return rows_.size() <= 1; }  // the headers only

  private:
    std::vector<std::vector<std::string>> rows_;
};

// The payload as one short line: control characters and non-ASCII bytes escaped, cut at
// `max` characters.
std::string preview(std::string_view payload, std::size_t max = 40);

}  // namespace delayq::cli
