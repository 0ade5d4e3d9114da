#pragma once

#include <span>
#include <string>
#include <string_view>

namespace delayq::detail {

// Bytes as lowercase hex, two digits a byte: the shared secret's stored form, a spec's digest.
inline std::string lower_hex(std::span<const unsigned char> bytes) {
    constexpr std::string_view kDigits = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * bytes.size());
    for (const unsigned char b : bytes) {
        hex.push_back(kDigits[b >> 4U]);
        hex.push_back(kDigits[b & 0xfU]);
    }
    return hex;
}

}  // namespace delayq::detail
