#include "time_text.hpp"

#include <delayq/error.hpp>
#include <delayq/time.hpp>

#include "errors.hpp"

namespace delayq::cli {

Duration duration_arg(std::string_view text) {
    try {
        return parse_duration(text);
    } catch (const InvalidArgument& e) {
        throw UsageError(e.what());
    }
}

TimePoint time_arg(std::string_view text) {
    try {
        return parse_time(text);
    } catch (const InvalidArgument& e) {
        throw UsageError(e.what());
    }
}

long long unix_ms(TimePoint t) { return static_cast<long long>(t.time_since_epoch().count()); }

std::string relative_time(TimePoint t, TimePoint now) {
    return t >= now ? "in " + rough_duration(t - now) : rough_duration(now - t) + " ago";
}

std::string rough_duration(Duration d) {
    // format_duration's terms run digits then letters: the third term starts at the third switch
    // from a letter to a digit.
    std::string text = format_duration(d);
    int terms = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool digit = text[i] >= '0' && text[i] <= '9';
        const bool after_letter = i > 0 && !(text[i - 1] >= '0' && text[i - 1] <= '9');
        if (digit && (i == 0 || after_letter) && ++terms == 3) {
            text.resize(i);
            break;
        }
    }
    return text;
}

}  // namespace delayq::cli
