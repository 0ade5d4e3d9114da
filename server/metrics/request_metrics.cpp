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

void RequestMetrics::render(TextFormat& out) const {
    const std::string name = "delayq_http_request_duration_seconds";
    out.family(name, "histogram",
               "How long the service took to answer, by route and status (a long-poll's wait for "
               "messages not included).");
    std::lock_guard lock(mu_);
    for (const auto& [key, s] : series_) {
        const auto& [method, route, status] = key;
        const std::string code = std::to_string(status);
        render_histogram(out, name, {{"method", method}, {"route", route}, {"status", code}}, s,
                         kBounds);
    }
    const std::string waits = "delayq_http_long_poll_wait_seconds";
    out.family(waits, "histogram", "How long long-polls waited for messages, by route.");
    for (const auto& [route, s] : waits_)
        render_histogram(out, waits, {{"route", route}}, s, kBounds);
}

}  // namespace delayq::server
