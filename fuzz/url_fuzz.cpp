// Redis URLs as users write them (--redis, DELAYQ_REDIS_URL): one server, seed lists, TLS,
// unix sockets and sentinels; and queue patterns (auth file, --queue). A URL must parse or be an
// InvalidArgument; what parses names at most kMaxSeeds servers.
#include <cstddef>
#include <cstdint>
#include <delayq/error.hpp>
#include <delayq/queue_pattern.hpp>
#include <string_view>

#include "redis/url.hpp"

namespace {

namespace dd = delayq::detail;

template <typename F>
void expect_parse_or_refusal(F&& parse) {
    try {
        parse();
    } catch (const delayq::InvalidArgument&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view url(reinterpret_cast<const char*>(data), size);
    expect_parse_or_refusal([&] {
        const auto seeds = dd::parse_seeds(url);
        if (seeds.empty() || seeds.size() > dd::kMaxSeeds) __builtin_trap();
        for (const auto& seed : seeds) {
            if (seed.port < 0 || seed.port > 65535) __builtin_trap();
            (void)seed.describe();
        }
    });
    expect_parse_or_refusal([&] { (void)dd::parse_url(url).describe(); });
    if (dd::is_sentinel_url(url)) {
        expect_parse_or_refusal([&] {
            const auto sentinel = dd::parse_sentinel_url(url);
            if (sentinel.sentinels.empty() || sentinel.sentinels.size() > dd::kMaxSeeds) {
                __builtin_trap();
            }
        });
    }
    if (const auto pattern = delayq::QueuePattern::parse(url)) {
        (void)pattern->matches("orders");
    }
    return 0;
}
