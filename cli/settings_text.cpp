#include "settings_text.hpp"

#include <cstdio>
#include <delayq/time.hpp>

namespace delayq::cli {

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::string settings_text(const QueueSettings& s) {
    const Backoff& b = s.backoff;
    std::string out;
    out += "  paused          " + std::string(s.paused ? "yes" : "no") + "\n";
    out += "  max attempts    " + std::to_string(s.max_attempts) + "\n";
    out += "  backoff         " + format_duration(b.initial) + " x" + number_text(b.multiplier) +
           " per attempt, at most " + format_duration(b.max) + ", jitter +-" +
           number_text(b.jitter * 100) + "%\n";
    out +=
        "  dead letters    at most " +
        (s.dead_max_count == 0 ? std::string("unbounded") : std::to_string(s.dead_max_count)) +
        ", kept " +
        (s.dead_max_age.count() == 0 ? std::string("forever") : format_duration(s.dead_max_age)) +
        "\n";
    out += "  layout          " +
           (s.layout == 0 ? std::string("none yet (nothing written)") : std::to_string(s.layout)) +
           "\n";
    return out;
}

}  // namespace delayq::cli
