#include "arg_kinds.hpp"

#include <algorithm>
#include <cctype>

#include "delayq/limits.hpp"

namespace delayq::test::script_args {
namespace {

constexpr std::size_t kHuge = 1 << 20;  // a 1 MB argument
const std::string kNotUtf8 = "\xff\xfe\xc3\x28";

// What no number argument takes, whatever its range.
std::vector<std::string> not_integers() {
    return {"",
            "abc",
            "1.5",
            "-0",
            "1e3",
            "0x10",
            " 1",
            "1 ",
            "nan",
            "inf",
            "-inf",
            "1e308",
            "9223372036854775808",
            "-9223372036854775809",
            "-5",
            std::string(kHuge, '9'),
            kNotUtf8,
            "+1"};
}

std::vector<std::string> not_decimals() {
    return {"",       "abc", "nan", "-nan",  "inf",   "-inf",
            "0x10",   " 1",  "1 ",  "1e308", "1e999", std::string(kHuge, '9'),
            kNotUtf8, "1,5"};
}

std::vector<std::string> not_texts(std::int64_t max_bytes) {
    return {"",
            std::string(static_cast<std::size_t>(max_bytes) + 1, 'a'),
            std::string(kHuge, 'a'),
            kNotUtf8,
            "a\nb",
            std::string("a\0b", 3)};
}

std::vector<std::string> not_ids() {
    return {"",
            std::string(kMaxNameBytes + 1, 'a'),
            std::string(kHuge, 'a'),
            kNotUtf8,
            "a{b}",
            "a\nb",
            std::string("a\0b", 3)};
}

std::vector<std::string> not_leases() {
    return {"",
            "123",
            "abc",
            std::string(kHuge, 'a'),
            std::string(20, '\xff'),
            "0000000000000Asa-x",   // an uppercase hex digit
            "00000000000001",       // a token without an id
            "00000000000001{sa}",   // an id no message may have
            "0000000000000g1sa-x",  // not hex
            "00000000000001" + kNotUtf8};
}

std::vector<std::string> without(std::vector<std::string> values, const Param& param) {
    std::erase_if(values, [&](const std::string& v) {
        return v == param.valid ||
               std::find(param.also_valid.begin(), param.also_valid.end(), v) !=
                   param.also_valid.end() ||
               std::find(param.choices.begin(), param.choices.end(), v) != param.choices.end();
    });
    return values;
}

}  // namespace

std::vector<std::string> malformed_values(const Param& param) {
    std::vector<std::string> out;
    switch (param.kind) {
        case ArgKind::kInteger:
            out = not_integers();
            if (param.lo > 0) out.push_back(std::to_string(param.lo - 1));
            out.push_back(std::to_string(param.hi + 1));
            break;
        case ArgKind::kTimeOrNone:
            out = not_integers();
            out.insert(out.end(), {"-2", std::to_string(kMaxTimeMs + 1)});
            break;
        case ArgKind::kDecimal:
            out = not_decimals();
            out.push_back(std::to_string(param.lo - 1));
            out.push_back(std::to_string(param.hi) + "1");
            break;
        case ArgKind::kChoice: {
            out = {"", "x", "1", std::string(kHuge, 'a'), kNotUtf8};
            std::string upper = param.valid;
            for (char& c : upper)
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            out.push_back(upper);
            out.push_back(param.valid + " ");
            break;
        }
        case ArgKind::kId:
            out = not_ids();
            break;
        case ArgKind::kLease:
            // Any text is a lease that is lost unless held (ack.lua): the public Lease type
            // itself sends '' for a token past 14 hex digits.
            break;
        case ArgKind::kScheduleName:
            out = {"",
                   std::string(kMaxScheduleNameBytes + 1, 'a'),
                   std::string(kHuge, 'a'),
                   kNotUtf8,
                   "a b",
                   "{a}"};
            break;
        case ArgKind::kIdPrefix:
            out = {"", std::string(kMaxNameBytes - 10, 'a'), std::string(kHuge, 'a'), kNotUtf8,
                   "a{b}:"};
            break;
        case ArgKind::kText:
            out = not_texts(param.hi);
            break;
        case ArgKind::kHeaderValue:
            out = {std::string(static_cast<std::size_t>(param.hi) + 1, 'a'), kNotUtf8, "a\nb",
                   std::string(kHuge, 'a')};
            break;
        case ArgKind::kMember:
            out = {"x", "123", std::string(kHuge, 'a'), kNotUtf8, "ABCDEF0123456789"};
            break;
        case ArgKind::kCursor:
            out = {"", "abc", "-1", "1e3", "0x10", std::string(kHuge, '9'), kNotUtf8};
            break;
        case ArgKind::kAnyBytes:
            break;
    }
    return without(std::move(out), param);
}

std::vector<std::string> unknown_values(const Param& param) {
    if (!param.unknown_is_answer) return {};
    switch (param.kind) {
        case ArgKind::kId:
            return {"12345", "sa-no-such-id"};
        case ArgKind::kLease: {
            std::vector<std::string> out = not_leases();
            out.insert(out.end(),
                       {"00000000000001sa-no-such-id", "00000000000001" + param.valid.substr(14)});
            return out;
        }
        case ArgKind::kScheduleName:
            return {"sa-no-such-schedule"};
        default:
            return {};
    }
}

}  // namespace delayq::test::script_args
