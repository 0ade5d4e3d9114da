#include "loop.hpp"

#include <algorithm>
#include <random>

#include "log.hpp"

namespace delayq::detail {

Duration reconnect_delay(int failures) {
    thread_local std::mt19937 rng{std::random_device{}()};
    double base = 50.0 * static_cast<double>(1 << std::min(failures, 7));
    base = std::min(base, 5000.0) * std::uniform_real_distribution<double>(0.5, 1.0)(rng);
    return Duration(static_cast<Duration::rep>(base));
}

void report_loop_error(std::atomic<std::uint64_t>& errors, std::string_view queue,
                       std::string_view loop, const std::exception& e) {
    errors.fetch_add(1, std::memory_order_relaxed);
    log().warn("queue {}: {} failed, will retry: {}", queue, loop, e.what());
}

}  // namespace delayq::detail
