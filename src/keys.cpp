#include "keys.hpp"

#include <array>
#include <cstdio>

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

std::string lease_member(std::uint64_t token, std::string_view id) {
    constexpr std::size_t kSeqLen = 14;  // SEQ_LEN in lib.lua
    std::array<char, 24> hex{};
    const int len =
        std::snprintf(hex.data(), hex.size(), "%014llx", static_cast<unsigned long long>(token));
    // No script hands out such a token; '' is a member no lease can have.
    if (len != static_cast<int>(kSeqLen)) return {};
    std::string out(hex.data(), kSeqLen);
    out.append(id);
    return out;
}

}  // namespace delayq::detail
