#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// One histogram series: cumulative buckets, +Inf, sum and count. `series` has buckets (counts
// per bound, not cumulative), count and sum; `bounds` the buckets' upper bounds.
template <class Series, class Bounds>
void render_histogram(TextFormat& out, const std::string& name,
                      std::vector<TextFormat::Label> labels, const Series& series,
                      const Bounds& bounds) {
    const std::size_t fixed = labels.size();
    std::uint64_t cumulative = 0;
    std::string le;
    labels.emplace_back("le", "");
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += series.buckets[i];
        le = format_value(bounds[i]);
        labels.back().second = le;
        out.sample(name + "_bucket", labels, static_cast<double>(cumulative));
    }
    labels.back().second = "+Inf";
    out.sample(name + "_bucket", labels, static_cast<double>(series.count));
    labels.resize(fixed);
    out.sample(name + "_sum", labels, series.sum);
    out.sample(name + "_count", labels, static_cast<double>(series.count));
}

}  // namespace delayq::server
