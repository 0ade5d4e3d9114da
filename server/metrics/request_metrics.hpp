#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace delayq::server {

class TextFormat;

// How long the service took to answer, by route (its pattern, "/v1/queues/{queue}/leases",
// never the path itself, so the label set stays small) and status:
// delayq_http_request_duration_seconds; and apart from it, how long long-polls waited for
// messages, by route: delayq_http_long_poll_wait_seconds. Thread-safe.
class RequestMetrics {
  public:
    // Bucket bounds in seconds; long-polls wait up to 60 s.
    static constexpr std::array<double, 16> kBounds = {
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    // `took`: the service's own time, without what a long-poll waited.
    void observe(std::string_view method, std::string_view route, int status,
                 std::chrono::nanoseconds took);
    void observe_wait(std::string_view route, std::chrono::nanoseconds waited);
    void render(TextFormat& out) const;

  private:
    struct Series {
        std::array<std::uint64_t, kBounds.size()> buckets{};  // not cumulative
        std::uint64_t count = 0;
        double sum = 0;

        void add(std::chrono::nanoseconds d);
    };
    using Key = std::tuple<std::string, std::string, int>;
    // Orders keys and (method, route, status) views alike, so that a series is found without
    // building its key's strings.
    struct ByViews {
        using is_transparent = void;
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            return views(a) < views(b);
        }
        template <class T>
        static std::tuple<std::string_view, std::string_view, int> views(const T& key) {
            return {std::get<0>(key), std::get<1>(key), std::get<2>(key)};
        }
    };
    mutable std::mutex mu_;
    std::map<Key, Series, ByViews> series_;
    std::map<std::string, Series, std::less<>> waits_;
};

}  // namespace delayq::server
