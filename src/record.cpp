#include "record.hpp"

#include <array>
#include <cstddef>

namespace delayq::detail {
namespace {

// Appends `n` as a big-endian integer of `bytes` bytes.
void put_big_endian(std::string& out, std::uint64_t n, int bytes) {
    for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((n >> shift) & 0xff));
    }
}

// A non-negative integer in msgpack's shortest form, as cmsgpack (mp_encode_int) writes it.
void put_uint(std::string& out, std::uint64_t n) {
    if (n < 0x80) {
        out.push_back(static_cast<char>(n));
    } else if (n <= 0xff) {
        out.push_back(static_cast<char>(0xcc));
        put_big_endian(out, n, 1);
    } else if (n <= 0xffff) {
        out.push_back(static_cast<char>(0xcd));
        put_big_endian(out, n, 2);
    } else if (n <= 0xffffffff) {
        out.push_back(static_cast<char>(0xce));
        put_big_endian(out, n, 4);
    } else {
        out.push_back(static_cast<char>(0xcf));
        put_big_endian(out, n, 8);
    }
}

// A msgpack string header (str_header in send.lua).
void put_str_header(std::string& out, std::size_t len) {
    if (len < 32) {
        out.push_back(static_cast<char>(0xa0 | len));
    } else if (len < 0x100) {
        out.push_back(static_cast<char>(0xd9));
        put_big_endian(out, len, 1);
    } else if (len < 0x10000) {
        out.push_back(static_cast<char>(0xda));
        put_big_endian(out, len, 2);
    } else {
        out.push_back(static_cast<char>(0xdb));
        put_big_endian(out, len, 4);
    }
}

}  // namespace

std::string short_record(std::int64_t max_attempts, std::string_view payload) {
    std::string out;
    out.reserve(payload.size() + 14);
    put_uint(out, static_cast<std::uint64_t>(max_attempts));
    put_str_header(out, payload.size());
    out.append(payload);
    return out;
}

}  // namespace delayq::detail
