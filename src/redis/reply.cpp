#include "redis/reply.hpp"

#include <hiredis/hiredis.h>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

[[noreturn]] void unexpected(const Reply& reply, std::string_view wanted) {
    std::string got = reply.is_error() ? "error '" + reply.str + "'" : "another type";
    throw ServerError("unexpected reply from Redis: wanted " + std::string(wanted) + ", got " +
                      got);
}

}  // namespace

std::int64_t Reply::as_int() const {
    if (type != Type::kInteger) unexpected(*this, "an integer");
    return integer;
}

const std::string& Reply::as_string() const {
    if (type != Type::kString && type != Type::kStatus) unexpected(*this, "a string");
    return str;
}

const std::vector<Reply>& Reply::as_array() const {
    if (type != Type::kArray) unexpected(*this, "an array");
    return elements;
}

const Reply& Reply::at(std::size_t index) const {
    const auto& items = as_array();
    if (index >= items.size()) unexpected(*this, "a longer array");
    return items[index];
}

Reply convert_reply(const redisReply& reply) {
    Reply out;
    switch (reply.type) {
        case REDIS_REPLY_STRING:
            out.type = Reply::Type::kString;
            out.str.assign(reply.str, reply.len);
            break;
        case REDIS_REPLY_STATUS:
            out.type = Reply::Type::kStatus;
            out.str.assign(reply.str, reply.len);
            break;
        case REDIS_REPLY_ERROR:
            out.type = Reply::Type::kError;
            out.str.assign(reply.str, reply.len);
            break;
        case REDIS_REPLY_INTEGER:
            out.type = Reply::Type::kInteger;
            out.integer = reply.integer;
            break;
        case REDIS_REPLY_ARRAY:
            out.type = Reply::Type::kArray;
            out.elements.reserve(reply.elements);
            for (std::size_t i = 0; i < reply.elements; ++i) {
                out.elements.push_back(convert_reply(*reply.element[i]));
            }
            break;
        default:
            out.type = Reply::Type::kNil;
            break;
    }
    return out;
}

}  // namespace delayq::detail
