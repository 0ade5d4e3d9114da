#include <algorithm>
#include <cmath>

#include "delayq/options.hpp"

namespace delayq {

Duration Backoff::delay_for(int attempt, double random01) const {
    double base = static_cast<double>(initial.count()) *
                  std::pow(multiplier, static_cast<double>(std::max(attempt, 1) - 1));
    base = std::min(base, static_cast<double>(max.count()));
    double spread = 1.0 + jitter * (2.0 * std::clamp(random01, 0.0, 1.0) - 1.0);
    auto ms = static_cast<Duration::rep>(std::llround(base * spread));
    return Duration(std::clamp<Duration::rep>(ms, 0, max.count()));
}

}  // namespace delayq
