#include "keys.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

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

std::optional<std::string> queue_of_stats_key(std::string_view key) {
    constexpr std::string_view kHead = "dq:{";
    constexpr std::string_view kTail = "}:stats";
    if (key.size() <= kHead.size() + kTail.size() || !key.starts_with(kHead) ||
        !key.ends_with(kTail)) {
        return std::nullopt;
    }
    return std::string(key.substr(kHead.size(), key.size() - kHead.size() - kTail.size()));
}

std::string sequence_key(std::uint64_t n) {
    std::array<char, 24> hex{};
    const int len = std::snprintf(hex.data(), hex.size(), "%0*llx", static_cast<int>(kSeqLen),
                                  static_cast<unsigned long long>(n));
    // No script hands out such a number; '' is a key no message can have.
    if (len != static_cast<int>(kSeqLen)) return {};
    return std::string(hex.data(), kSeqLen);
}

bool is_sequence_key(std::string_view text) {
    return text.size() == kSeqLen &&
           text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string lease_member(std::uint64_t token, std::string_view id) {
    std::string out = sequence_key(token);
    if (out.empty()) return out;
    out.append(id);
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
