#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace delayq::server {

// Writes the Prometheus text exposition format (0.0.4): a family's HELP and TYPE once, then
// its samples. The caller writes each family's samples together, as the format requires.
class TextFormat {
  public:
    using Label = std::pair<std::string_view, std::string_view>;
    using Labels = std::initializer_list<Label>;

    void family(std::string_view name, std::string_view type, std::string_view help);
    // name: the family's name, or it with a suffix (_bucket, _sum, _count).
    void sample(std::string_view name, Labels labels, double value);
    void sample(std::string_view name, std::span<const Label> labels, double value);

    const std::string& text() const { return out_; }

  private:
    std::string out_;
};

// A label value as the format quotes it: backslash, double quote and line feed escaped.
std::string escape_label_value(std::string_view value);
// A number as the format reads it: integers without a fraction, +Inf, shortest round trip.
std::string format_value(double value);

}  // namespace delayq::server
