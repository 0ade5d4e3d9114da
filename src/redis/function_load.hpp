#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "redis/connection.hpp"
#include "redis/reply.hpp"
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
    std::string detail{};  // the server's words, for kRefused and kMismatch
    // kReady because this call's FUNCTION LOAD put it there (`delayq functions load` says so).
    bool loaded = false;
    // kRefused: the command refused and its error reply, so that an operator's load can tell
    // a permission or memory refusal from the rest.
    std::string command{};
    Reply refusal{};
};

// The code of the library `name` in a FUNCTION LIST ... WITHCODE reply; nullopt when the reply
// lists no library of exactly that name (LIBRARYNAME is a pattern).
std::optional<std::string> listed_code(const Reply& list, std::string_view name);

// What the node holds under `library.name`, loading nothing: kReady (our exact code),
// kMismatch (other code), kRefused (FUNCTION LIST refused), or nullopt when no such library.
std::optional<LibraryCheck> find_library(Connection& conn, const FunctionLibrary& library);

// The per-node step before the first FCALL (a cluster client runs it for each primary):
// FUNCTION LIST LIBRARYNAME <name> WITHCODE; our exact code -> kReady; other code -> kMismatch;
// absent -> FUNCTION LOAD, never with REPLACE (another release's library is not ours to
// change), and when a concurrent loader won ("already exists") its code is checked again.
// Needs `conn` with no reply pending. Throws ConnectionError or TimeoutError as commands do.
LibraryCheck ensure_library(Connection& conn, const FunctionLibrary& library);

}  // namespace delayq::detail
