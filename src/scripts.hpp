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
extern const ScriptSource kAck;
extern const ScriptSource kCancel;
extern const ScriptSource kDeadPurge;
extern const ScriptSource kDeadRequeue;
extern const ScriptSource kDelete;
extern const ScriptSource kExtend;
extern const ScriptSource kFetch;
extern const ScriptSource kGet;
extern const ScriptSource kList;
extern const ScriptSource kNack;
extern const ScriptSource kRelease;
extern const ScriptSource kReschedule;
extern const ScriptSource kScheduleClaim;
extern const ScriptSource kScheduleGet;
extern const ScriptSource kSchedulePoll;
extern const ScriptSource kSchedulePut;
extern const ScriptSource kScheduleStop;
extern const ScriptSource kScheduleTrigger;
extern const ScriptSource kSend;
extern const ScriptSource kSettings;
extern const ScriptSource kSettingsGet;
extern const ScriptSource kStats;
extern const FunctionLibrary kLibrary;
}  // namespace scripts

}  // namespace delayq::detail
