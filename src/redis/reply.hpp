#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct redisReply;  // hiredis: its header stays inside src/redis/*.cpp

namespace delayq::detail {

// A Redis reply copied out of hiredis, so that hiredis types stay inside src/redis/.
struct Reply {
    enum class Type { kNil, kString, kStatus, kError, kInteger, kArray };

    Type type = Type::kNil;
    std::string str;  // kString, kStatus, kError
    std::int64_t integer = 0;
    std::vector<Reply> elements;

    bool is_error() const { return type == Type::kError; }
    bool is_nil() const { return type == Type::kNil; }

    // Accessors that throw ServerError when the reply has another shape than the caller expects.
    std::int64_t as_int() const;
    const std::string& as_string() const;
    const std::vector<Reply>& as_array() const;
    const Reply& at(std::size_t index) const;
};

// Copies a hiredis reply, which the caller still owns and frees.
Reply convert_reply(const redisReply& reply);

}  // namespace delayq::detail
