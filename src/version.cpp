#include "delayq/version.hpp"

namespace delayq {

// Compiled into the library, so it names the library that runs, not the headers a program saw.
const char* version() noexcept { return kVersion; }

}  // namespace delayq
