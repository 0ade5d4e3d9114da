#include "metrics/request_metrics.hpp"

#include <algorithm>
#include <limits>

#include "metrics/text_format.hpp"

namespace delayq::server {

void RequestMetrics::observe(std::string_view method, std::string_view route, int status,
                             std::chrono::nanoseconds took) {
    const double seconds = std::chrono::duration<double>(took).count();
    const auto bucket = static_cast<std::size_t>(
        std::lower_bound(kBounds.begin(), kBounds.end(), seconds) - kBounds.begin());
    std::lock_guard lock(mu_);
    // Found without building the key's strings: every series but a route's first answer.
    auto it = series_.find(std::tuple(method, route, status));
    if (it == series_.end()) {
        it = series_.emplace(Key(std::string(method), std::string(route), status), Series{}).first;
    }
    Series& s = it->second;
    if (bucket < kBounds.size()) ++s.buckets[bucket];
    ++s.count;
    s.sum += seconds;
}

void RequestMetrics::render(TextFormat& out) const {
    const std::string name = "delayq_http_request_duration_seconds";
    out.family(name, "histogram", "How long the service took to answer, by route and status.");
    std::lock_guard lock(mu_);
    for (const auto& [key, s] : series_) {
        const auto& [method, route, status] = key;
        const std::string code = std::to_string(status);
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < kBounds.size(); ++i) {
            cumulative += s.buckets[i];
            out.sample(name + "_bucket",
                       {{"method", method},
                        {"route", route},
                        {"status", code},
                        {"le", format_value(kBounds[i])}},
                       static_cast<double>(cumulative));
        }
        out.sample(name + "_bucket",
                   {{"method", method}, {"route", route}, {"status", code}, {"le", "+Inf"}},
                   static_cast<double>(s.count));
        out.sample(name + "_sum", {{"method", method}, {"route", route}, {"status", code}}, s.sum);
        out.sample(name + "_count", {{"method", method}, {"route", route}, {"status", code}},
                   static_cast<double>(s.count));
    }
}

}  // namespace delayq::server
