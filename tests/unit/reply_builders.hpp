#pragma once

// Replies as hiredis would hand them to the library, built by the unit tests of its decoders.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "redis/reply.hpp"

namespace delayq::detail::replies {

inline Reply of_type(Reply::Type type, std::string s = {}) {
    Reply r;
    r.type = type;
    r.str = std::move(s);
    return r;
}

inline Reply text(std::string s) { return of_type(Reply::Type::kString, std::move(s)); }

inline Reply error(std::string s) { return of_type(Reply::Type::kError, std::move(s)); }

inline Reply integer(std::int64_t n) {
    Reply r;
    r.type = Reply::Type::kInteger;
    r.integer = n;
    return r;
}

inline Reply array(std::vector<Reply> items) {
    Reply r;
    r.type = Reply::Type::kArray;
    r.elements = std::move(items);
    return r;
}

// An array of texts.
inline Reply texts(const std::vector<std::string>& values) {
    std::vector<Reply> items;
    for (const auto& v : values) items.push_back(text(v));
    return array(std::move(items));
}

}  // namespace delayq::detail::replies
