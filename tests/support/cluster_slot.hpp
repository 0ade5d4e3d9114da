#pragma once

#include <string>
#include <string_view>

namespace delayq::test {

inline constexpr int kClusterSlots = 16384;

// The Redis Cluster slot of `key`: CRC16-XMODEM of its hash tag (the text between the first '{'
// and the next '}', when not empty) or else of the whole key, modulo 16384. Written from the
// Cluster specification, apart from the library, so that tests can check the library with it.
int cluster_slot_of(std::string_view key);

// A hash tag in `slot`, "{n}" for the least number n there: a test puts a key where it wants
// with cluster_tag_in_slot(slot) + "name".
std::string cluster_tag_in_slot(int slot);

}  // namespace delayq::test
