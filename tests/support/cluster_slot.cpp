#include "support/cluster_slot.hpp"

#include <cstdint>
#include <stdexcept>

namespace delayq::test {
namespace {

// CRC16-XMODEM (polynomial 0x1021, initial value 0, no reflection), bit by bit: a test oracle
// wants the plainest form, not a fast table.
std::uint16_t crc16_xmodem(std::string_view bytes) {
    std::uint16_t crc = 0;
    for (const char c : bytes) {
        crc = static_cast<std::uint16_t>(crc ^ (static_cast<unsigned char>(c) << 8));
        for (int bit = 0; bit < 8; ++bit) {
            const bool top = (crc & 0x8000U) != 0;
            crc = static_cast<std::uint16_t>(crc << 1);
            if (top) crc = static_cast<std::uint16_t>(crc ^ 0x1021U);
        }
    }
    return crc;
}

}  // namespace

int cluster_slot_of(std::string_view key) {
    if (const auto open = key.find('{'); open != std::string_view::npos) {
        const auto close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1) {
            key = key.substr(open + 1, close - open - 1);
        }
    }
    return crc16_xmodem(key) % kClusterSlots;
}

std::string cluster_tag_in_slot(int slot) {
    if (slot < 0 || slot >= kClusterSlots)
        throw std::out_of_range("no slot " + std::to_string(slot));
    // Every slot has one below 110,000 (checked for all of them); the bound only
    // turns a broken oracle into an error instead of a hang.
    for (int n = 0; n < 10'000'000; ++n) {
        std::string tag = std::to_string(n);
        if (cluster_slot_of(tag) == slot) return "{" + tag + "}";
    }
    throw std::logic_error("no tag found for slot " + std::to_string(slot));
}

}  // namespace delayq::test
