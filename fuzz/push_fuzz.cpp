// What a queue's owner writes of its push target, and what a receiver answers. The first byte
// picks the input's form: the target's JSON body (PUT .../push-target, then
// validate_push_target and the request a pusher would build from it), an address and the
// operator's network rules, a Retry-After value, or an answer's status and body. Each must end in
// a value or an InvalidArgument.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <delayq/delivery.hpp>
#include <delayq/error.hpp>
#include <delayq/push.hpp>
#include <string>
#include <string_view>

#include "json/parse.hpp"
#include "json/push.hpp"
#include "push/answer.hpp"
#include "push/request.hpp"
#include "push/retry_after.hpp"
#include "push/signature.hpp"

namespace {

void target(std::string_view text) {
    const delayq::PushTarget t =
        delayq::json::push_target_from_json(delayq::json::parse_json(text));
    delayq::validate_push_target(t);
    const delayq::push::WebhookSigner signer(t.secrets);
    const delayq::Delivery delivery("orders", delayq::Lease("id-1", 1), "{}", 1, 3,
                                    delayq::TimePoint{}, delayq::TimePoint{});
    (void)delayq::push::push_request(
        t, signer, delivery, std::chrono::system_clock::time_point(std::chrono::seconds(1)));
}

void address(std::string_view text) {
    // The text up to a newline is the address; each line after it one entry of the allow list.
    delayq::PushNetwork network;
    network.deny_private = !text.empty() && (text[0] & 1) != 0;
    std::string_view rest = text;
    const std::size_t first = rest.find('\n');
    const std::string_view addr = rest.substr(0, first);
    rest = first == std::string_view::npos ? std::string_view{} : rest.substr(first + 1);
    while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        network.allow.emplace_back(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    }
    try {
        delayq::validate_push_network(network);
    } catch (const delayq::InvalidArgument&) {
        network.allow.clear();
    }
    (void)delayq::push_address_refusal(addr, network);
}

void retry_after(std::string_view text) {
    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
    const auto wait = delayq::push::parse_retry_after(text, now);
    if (wait && (*wait < std::chrono::milliseconds(0) || *wait > delayq::push::kMaxRetryAfter)) {
        __builtin_trap();
    }
}

void answer(const std::uint8_t* data, std::size_t size, std::string_view body) {
    const int status = size < 2 ? 0 : (data[0] << 8 | data[1]) - 100;
    (void)delayq::push::judge_answer(status, body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        switch (data[0] % 5) {
            case 0:
                target(text);
                break;
            case 1:
                address(text);
                break;
            case 2:
                retry_after(text);
                break;
            case 3:
                answer(data + 1, size - 1, text.size() < 2 ? text : text.substr(2));
                break;
            default:
                delayq::validate_push_secret(text);
                break;
        }
    } catch (const delayq::InvalidArgument&) {
    }
    return 0;
}
