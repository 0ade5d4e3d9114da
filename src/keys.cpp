#include "keys.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "delayq/error.hpp"
#include "shared_constants.hpp"

namespace delayq::detail {

QueueKeys make_keys(std::string_view queue) {
    QueueKeys keys;
    for (std::size_t i = 0; i < kKeySuffixes.size(); ++i) {
        keys[i].reserve(kKeyPrefix.size() + queue.size() + 3 + kKeySuffixes[i].size());
        keys[i].append(kKeyPrefix).append("{").append(queue).append("}:").append(kKeySuffixes[i]);
    }
    return keys;
}

std::string make_secret_key(std::string_view queue) {
    std::string key;
    key.append(kSecretKeyPrefix).append("{").append(queue).append("}:push");
    return key;
}

std::optional<std::string> queue_of_stats_key(std::string_view key) {
    constexpr std::string_view kHead = "dq:{";
    constexpr std::string_view kTail = "}:stats";
    if (key.size() <= kHead.size() + kTail.size() || !key.starts_with(kHead) ||
        !key.ends_with(kTail)) {
        return std::nullopt;
    }
    return std::string(key.substr(kHead.size(), key.size() - kHead.size() - kTail.size()));
}

namespace {

constexpr std::string_view kHexDigits = "0123456789abcdef";

bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Every lease handed out or taken back passes here twice: digits by hand, not snprintf's
// format parsing nor find_first_not_of's search of the digit list per byte. False, and nothing
// written, for a number past kSeqLen digits.
bool append_sequence_key(std::string& out, std::uint64_t n) {
    static_assert(kSeqLen < 16);
    if ((n >> (4U * kSeqLen)) != 0) return false;
    std::array<char, kSeqLen> hex{};
    for (std::size_t i = kSeqLen; i-- > 0; n >>= 4U) hex[i] = kHexDigits[n & 0xfU];
    out.append(hex.data(), hex.size());
    return true;
}

}  // namespace

std::string sequence_key(std::uint64_t n) {
    std::string out;
    // No script hands out such a number; '' is a key no message can have.
    append_sequence_key(out, n);
    return out;
}

bool is_sequence_key(std::string_view text) {
    return text.size() == kSeqLen && std::all_of(text.begin(), text.end(), is_hex_digit);
}

std::string lease_member(std::uint64_t token, std::string_view id) {
    std::string out;
    out.reserve(kSeqLen + id.size());
    if (append_sequence_key(out, token)) out.append(id);
    return out;
}

std::optional<std::pair<std::uint64_t, std::string_view>> parse_lease(std::string_view lease) {
    if (lease.size() <= kSeqLen || !is_sequence_key(lease.substr(0, kSeqLen))) return std::nullopt;
    std::uint64_t token = 0;
    const auto [end, ec] = std::from_chars(lease.data(), lease.data() + kSeqLen, token, 16);
    if (ec != std::errc() || token == 0) return std::nullopt;
    return std::pair{token, lease.substr(kSeqLen)};
}

std::pair<std::uint64_t, std::string_view> split_lease(std::string_view lease) {
    auto parts = parse_lease(lease);
    if (!parts) throw ServerError("not a lease: " + std::string(lease));
    return *parts;
}

}  // namespace delayq::detail
