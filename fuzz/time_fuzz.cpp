// Durations and times as users write them (--delay, --at, JSON fields, query parameters): each
// parses or is an InvalidArgument, and what parses formats back to text that parses to the
// same value.
#include <cstddef>
#include <cstdint>
#include <delayq/error.hpp>
#include <delayq/time.hpp>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const delayq::Duration d = delayq::parse_duration(text);
        if (delayq::parse_duration(delayq::format_duration(d)) != d) __builtin_trap();
    } catch (const delayq::InvalidArgument&) {
    }
    try {
        const delayq::TimePoint t = delayq::parse_time(text);
        if (delayq::parse_time(delayq::format_time(t)) != t) __builtin_trap();
    } catch (const delayq::InvalidArgument&) {
    }
    return 0;
}
