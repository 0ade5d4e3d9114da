#include "redis/key_slot.hpp"

#include <array>
#include <cstdint>

namespace delayq::detail {
namespace {

// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the checksum the cluster
// specification names, by a table built at compile time.
constexpr std::array<std::uint16_t, 256> make_table() {
    std::array<std::uint16_t, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        auto crc = static_cast<std::uint16_t>(byte << 8U);
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc & 0x8000U) != 0 ? static_cast<std::uint16_t>((crc << 1U) ^ 0x1021U)
                                       : static_cast<std::uint16_t>(crc << 1U);
        }
        table[byte] = crc;
    }
    return table;
}

constexpr std::array<std::uint16_t, 256> kTable = make_table();

std::uint16_t crc16(std::string_view data) {
    std::uint16_t crc = 0;
    for (const char c : data) {
        const auto index = static_cast<std::uint8_t>((crc >> 8U) ^ static_cast<std::uint8_t>(c));
        crc = static_cast<std::uint16_t>((crc << 8U) ^ kTable[index]);
    }
    return crc;
}

}  // namespace

int key_slot(std::string_view key) {
    if (const auto open = key.find('{'); open != std::string_view::npos) {
        const auto close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1) {
            key = key.substr(open + 1, close - open - 1);
        }
    }
    return crc16(key) % kClusterSlots;
}

}  // namespace delayq::detail
