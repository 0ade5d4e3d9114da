#pragma once

#include <string>

#include "redis/connection.hpp"
#include "scripts.hpp"

namespace delayq::detail {

// What one node answered to ensure_library.
struct LibraryCheck {
    enum class Outcome {
        kReady,     // the library is loaded with exactly our code: call its functions
        kRefused,   // FUNCTION LIST or LOAD refused (ACL, OOM, a proxy): run scripts
        kMismatch,  // a library of our name holds other code: never call it
    };
    Outcome outcome = Outcome::kRefused;
    std::string detail;  // the server's words, for kRefused and kMismatch
};

// The per-node step before the first FCALL (a cluster client runs it for each primary):
// FUNCTION LIST LIBRARYNAME <name> WITHCODE; our exact code -> kReady; other code -> kMismatch;
// absent -> FUNCTION LOAD, never with REPLACE (another release's library is not ours to
// change), and when a concurrent loader won ("already exists") its code is checked again.
// Needs `conn` with no reply pending. Throws ConnectionError or TimeoutError as commands do.
LibraryCheck ensure_library(Connection& conn, const FunctionLibrary& library);

}  // namespace delayq::detail
