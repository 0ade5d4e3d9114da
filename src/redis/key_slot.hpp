#pragma once

#include <string_view>

namespace delayq::detail {

// Redis Cluster's hash slots: 16384, each served by one primary.
inline constexpr int kClusterSlots = 16384;

// The slot Redis Cluster puts `key` in: CRC16 (XMODEM) of the key's hash tag (the text between
// its first '{' and the first '}' after it, when that is not empty) or of the whole key, modulo
// 16384. Every key of a queue shares the tag `{name}`, so a queue lives in one slot.
int key_slot(std::string_view key);

}  // namespace delayq::detail
