#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace delayq::detail {

// The record of a message that was never delivered, has a generated id and no expiry: the 2-value
// shape of src/lua/lib/record.lua, max_attempts then the payload, in the bytes cmsgpack.pack
// writes for them. send.lua stores it as given, so a batch costs Redis no per-message record
// building.
std::string short_record(std::int64_t max_attempts, std::string_view payload);

}  // namespace delayq::detail
