#pragma once

namespace delayq::detail {

// A Lua script embedded at build time from src/lua/ (see cmake/embed_lua.cmake).
struct ScriptSource {
    const char* name;
    const char* source;
    const char* sha1;  // of `source`, computed at build time; EVALSHA names it
    // Its shebang says flags=no-writes: it runs with EVALSHA_RO / EVAL_RO, or FCALL_RO.
    bool read_only;
    const char* function;  // its name in the function library
};

// Every script as one Redis function library (see cmake/lua_library.cmake).
struct FunctionLibrary {
    const char* name;  // delayq_<layout>_<hash>
    const char* code;  // what FUNCTION LOAD takes, and FUNCTION LIST ... WITHCODE must show
};

namespace scripts {
// One per line of DELAYQ_LUA_SCRIPTS in src/CMakeLists.txt (kAck, kFetch, ...).
#include "script_list.hpp"
extern const FunctionLibrary kLibrary;
}  // namespace scripts

}  // namespace delayq::detail
