#pragma once

namespace delayq {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace delayq
