// Lease strings as clients send them back, plain (Lease::parse, the scripts' parse_lease) and
// sealed by the service (LeaseSeal), and the listings' cursors (messages and schedules), whose
// text is the client's too. What parses must print back the same; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <delayq/delivery.hpp>
#include <delayq/error.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "auth/lease_seal.hpp"
#include "codec/inspect.hpp"
#include "codec/schedule.hpp"
#include "keys.hpp"

namespace {

void lease_round_trip(std::string_view text) {
    const std::optional<delayq::Lease> lease = delayq::Lease::parse(text);
    if (lease) {
        const std::optional<delayq::Lease> again = delayq::Lease::parse(lease->to_string());
        if (!again || !(*again == *lease)) __builtin_trap();
    }
    if (const auto split = delayq::detail::parse_lease(text)) {
        if (delayq::detail::lease_member(split->first, split->second) != text) __builtin_trap();
    }
}

void sealed(std::string_view text) {
    static const delayq::server::auth::LeaseSeal seal("0123456789abcdef0123456789abcdef");
    const auto opened = seal.open("orders", text);
    if (opened && opened->authentic) {
        // Only a seal of this key makes an authentic lease: sealing it again gives the text.
        if (seal.seal("orders", opened->lease) != text) __builtin_trap();
    }
    if (const auto unsealed = delayq::server::auth::LeaseSeal::unseal(text)) {
        const std::string resealed = seal.seal("orders", unsealed->lease);
        const auto reopened = seal.open("orders", resealed);
        if (!reopened || !reopened->authentic || !(reopened->lease == unsealed->lease)) {
            __builtin_trap();
        }
    }
}

void cursors(std::string_view text) {
    namespace dd = delayq::detail;
    try {
        dd::inspect_codec::encode_list(delayq::State::kScheduled,
                                       {.cursor = std::string(text), .limit = 10});
    } catch (const delayq::Error&) {
    }
    try {
        dd::schedule_codec::encode_get_page(text, 10);
    } catch (const delayq::Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    lease_round_trip(text);
    sealed(text);
    cursors(text);
    return 0;
}
