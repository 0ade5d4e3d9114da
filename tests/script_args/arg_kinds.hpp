#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace delayq::test::script_args {

// What a script takes at one ARGV position (its contract comment says which).
enum class ArgKind {
    kInteger,       // decimal digits, lo..hi
    kTimeOrNone,    // decimal digits up to kMaxTimeMs, or -1
    kDecimal,       // a double as std::to_chars writes it, lo..hi
    kChoice,        // one of `choices`
    kId,            // a message id (validate_id)
    kLease,         // a lease: any text, lost unless it is one held (ack.lua)
    kScheduleName,  // validate_schedule_name
    kIdPrefix,      // an occurrence's id prefix: an id with room for an instant
    kText,          // printable ASCII, 1..hi bytes
    kHeaderValue,   // printable ASCII and tabs, at most hi bytes
    kMember,        // a zset member: a sequence key, then an id unless generated
    kCursor,        // HSCAN's cursor
    kAnyBytes,      // anything (a payload, an error text): only its absence is malformed
};

struct Param {
    std::string label;
    ArgKind kind = ArgKind::kAnyBytes;
    std::string valid;  // the template's value
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    std::vector<std::string> choices{};
    // Values the contract also takes here (send's at_ms '' or '*'): never offered as malformed.
    std::vector<std::string> also_valid{};
    // Whether a well-formed value naming nothing (an unknown id or lease) is answered without
    // a change: then such values are offered as accepted cases.
    bool unknown_is_answer = false;
};

// Values the contract refuses at this position: wrong types, empty, huge, negative, NaN, inf,
// "-0", "1e3", "0x10", 2^63, 1e308, bytes that are not UTF-8.
std::vector<std::string> malformed_values(const Param& param);
// Well-formed values that name nothing: the script must answer them and change nothing.
std::vector<std::string> unknown_values(const Param& param);

}  // namespace delayq::test::script_args
