// `delayq send --file`: JSON lines, one message each. A file is parsed whole or refused with a
// UsageError naming the line; nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <delayq/error.hpp>
#include <delayq/options.hpp>
#include <string_view>

#include "errors.hpp"
#include "message_lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    try {
        const auto lines = delayq::cli::parse_message_lines(input, {}, delayq::QueueOptions{});
        for (const auto& line : lines) {
            if (line.line == 0) __builtin_trap();
        }
    } catch (const delayq::cli::UsageError&) {
    }
    return 0;
}
