#include "metrics/request_metrics.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "metrics/text_format.hpp"

namespace delayq::server {
void RequestMetrics::Series::add(std::chrono::nanoseconds d) {
    const double seconds = std::chrono::duration<double>(d).count();
    const auto bucket = static_cast<std::size_t>(
        std::lower_bound(kBounds.begin(), kBounds.end(), seconds) - kBounds.begin());
    if (bucket < kBounds.size()) ++buckets[bucket];
    ++count;
    sum += seconds;
}

void RequestMetrics::observe(std::string_view method, std::string_view route, int status,
                             std::chrono::nanoseconds took) {
    std::lock_guard lock(mu_);
    // Found without building the key's strings: every series but a route's first answer.
    auto it = series_.find(std::tuple(method, route, status));
    if (it == series_.end()) {
        it = series_.emplace(Key(std::string(method), std::string(route), status), Series{}).first;
    }
    it->second.add(took);
}

void RequestMetrics::observe_wait(std::string_view route, std::chrono::nanoseconds waited) {
    std::lock_guard lock(mu_);
    auto it = waits_.find(route);
    if (it == waits_.end()) it = waits_.emplace(std::string(route), Series{}).first;
    it->second.add(waited);
}

namespace {

// One histogram series in the text format: cumulative buckets, +Inf, sum and count.
template <class Series, class Bounds>
void render_series(TextFormat& out, const std::string& name, std::vector<TextFormat::Label> labels,
                   const Series& s, const Bounds& bounds) {
    const std::size_t fixed = labels.size();
    std::uint64_t cumulative = 0;
    std::string le;
    labels.emplace_back("le", "");
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += s.buckets[i];
        le = format_value(bounds[i]);
        labels.back().second = le;
        out.sample(name + "_bucket", labels, static_cast<double>(cumulative));
    }
    labels.back().second = "+Inf";
    out.sample(name + "_bucket", labels, static_cast<double>(s.count));
    labels.resize(fixed);
    out.sample(name + "_sum", labels, s.sum);
    out.sample(name + "_count", labels, static_cast<double>(s.count));
}

}  // namespace

void RequestMetrics::render(TextFormat& out) const {
    const std::string name = "delayq_http_request_duration_seconds";
    out.family(name, "histogram",
               "How long the service took to answer, by route and status (a long-poll's wait for "
               "messages not included).");
    std::lock_guard lock(mu_);
    for (const auto& [key, s] : series_) {
        const auto& [method, route, status] = key;
        const std::string code = std::to_string(status);
        render_series(out, name, {{"method", method}, {"route", route}, {"status", code}}, s,
                      kBounds);
    }
    const std::string waits = "delayq_http_long_poll_wait_seconds";
    out.family(waits, "histogram", "How long long-polls waited for messages, by route.");
    for (const auto& [route, s] : waits_) render_series(out, waits, {{"route", route}}, s, kBounds);
}

}  // namespace delayq::server
