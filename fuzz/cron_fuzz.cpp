// Cron expressions and schedule specs. The first byte picks the input's form: a cron expression
// (CronExpr, from a start the next 4 bytes pick), or a spec as the service's JSON body holds it
// (json::parse_schedule_spec, then validate_schedule and the next occurrences in its zone). What
// parses must compute occurrences that match, in order, or be an InvalidArgument.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <delayq/error.hpp>
#include <delayq/schedules.hpp>
#include <optional>
#include <string_view>

#include "json/parse.hpp"
#include "json/schedule.hpp"
#include "schedule/cron.hpp"

namespace {

// A start from 1970 to about 2106: four bytes of seconds.
std::chrono::local_seconds start_of(const std::uint8_t* bytes) {
    std::uint32_t s = 0;
    for (int i = 0; i < 4; ++i) s = (s << 8) | bytes[i];
    return std::chrono::local_seconds(std::chrono::seconds(s));
}

void cron(std::chrono::local_seconds from, std::string_view text) {
    const auto expr = delayq::detail::CronExpr::parse(text);
    std::chrono::local_seconds t = from;
    for (int i = 0; i < 3; ++i) {
        const std::optional<std::chrono::local_seconds> next = expr.next(t);
        if (!next) return;
        if (*next < t || !expr.matches(*next)) __builtin_trap();
        t = *next + std::chrono::seconds(1);
    }
}

void spec(std::chrono::local_seconds from, std::string_view text) {
    const delayq::ScheduleSpec s =
        delayq::json::parse_schedule_spec(delayq::json::parse_json(text));
    delayq::validate_schedule(s);
    const delayq::TimePoint start(from.time_since_epoch());
    const auto next = delayq::next_occurrences(s, start, 4, start);
    for (std::size_t i = 0; i < next.size(); ++i) {
        if (next[i] <= (i == 0 ? start : next[i - 1])) __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 5) return 0;
    const auto from = start_of(data + 1);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data + 5), size - 5);
    try {
        if (data[0] % 2 == 0) {
            cron(from, text);
        } else {
            spec(from, text);
        }
    } catch (const delayq::InvalidArgument&) {
    }
    return 0;
}
