#include "codec/push.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/common.hpp"
#include "codec/fetch.hpp"
#include "delayq/error.hpp"

namespace delayq::detail::push_codec {
namespace {

// push_get's reply, which push_read's begins with (lib/push.lua, PUSH_FIELDS then the last
// answer).
constexpr std::size_t kUrl = 0;
constexpr std::size_t kMethod = 1;
constexpr std::size_t kContentType = 2;
constexpr std::size_t kTimeout = 3;
constexpr std::size_t kInFlight = 4;
constexpr std::size_t kRate = 5;
constexpr std::size_t kHeaderNames = 6;
constexpr std::size_t kSecrets = 7;
constexpr std::size_t kUpdated = 8;
constexpr std::size_t kLastAt = 9;
constexpr std::size_t kLastStatus = 10;
constexpr std::size_t kLastError = 11;
constexpr std::size_t kPublicSize = 12;
// push_read's: then the header values and the secrets.
constexpr std::size_t kHeaderValues = 12;
constexpr std::size_t kSecretValues = 13;
constexpr std::size_t kReadSize = 14;
// push_lease's: fetch's reply, then these.
constexpr std::size_t kLimited = 4;
constexpr std::size_t kHasTarget = 5;

double rate_of(const std::string& text) {
    std::size_t used = 0;
    double rate = 0;
    try {
        rate = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || rate < 0) throw ServerError("push target: a bad stored rate");
    return rate;
}

PushTargetInfo info_of(const Reply& reply) {
    const auto& r = reply.as_array();
    PushTargetInfo info;
    info.url = r.at(kUrl).as_string();
    const auto method = parse_push_method(r.at(kMethod).as_string());
    if (!method) throw ServerError("push target: a stored method delayq does not know");
    info.method = *method;
    info.content_type = r.at(kContentType).as_string();
    info.request_timeout = Duration(decimal(r.at(kTimeout).as_string(), "push request timeout"));
    info.max_in_flight =
        static_cast<std::size_t>(decimal(r.at(kInFlight).as_string(), "push max in flight"));
    info.rate = rate_of(r.at(kRate).as_string());
    for (const Reply& name : r.at(kHeaderNames).as_array()) {
        info.header_names.push_back(name.as_string());
    }
    info.secrets = static_cast<std::size_t>(decimal(r.at(kSecrets).as_string(), "push secrets"));
    info.updated = unix_ms(decimal(r.at(kUpdated).as_string(), "push target's update"));
    const std::int64_t last_at = decimal(r.at(kLastAt).as_string(), "push's last answer");
    if (last_at >= 0) {
        info.last = PushOutcome{
            unix_ms(last_at),
            static_cast<int>(decimal(r.at(kLastStatus).as_string(), "push's last status")),
            r.at(kLastError).as_string()};
    }
    return info;
}

}  // namespace

ScriptArgs encode_set(const PushTarget& target) {
    validate_push_target(target);
    ScriptArgs args;
    args.add(target.url);
    args.add(to_string(target.method));
    args.add(target.content_type);
    args.add(static_cast<std::int64_t>(target.request_timeout.count()));
    args.add(static_cast<std::int64_t>(target.max_in_flight));
    // The shortest text that reads back as the same double.
    char rate[32];
    const auto end = std::to_chars(rate, rate + sizeof rate, target.rate).ptr;
    args.add_owned(std::string(rate, end));
    args.add(static_cast<std::int64_t>(target.headers.size()));
    for (const PushHeader& h : target.headers) {
        args.add(h.name);
        args.add(h.value);
    }
    args.add(static_cast<std::int64_t>(target.secrets.size()));
    for (const std::string& secret : target.secrets) args.add(secret);
    return args;
}

SetAnswer decode_set(const Reply& reply) {
    const std::string& status = reply.at(0).as_string();
    const TimePoint now = unix_ms(reply.at(1).as_int());
    if (status == "created") return {PushSetStatus::kCreated, now};
    if (status == "updated") return {PushSetStatus::kUpdated, now};
    if (status == "unchanged") return {PushSetStatus::kUnchanged, now};
    throw ServerError("push_set: an unknown status");
}

std::optional<PushTargetInfo> decode_get(const Reply& reply) {
    if (reply.as_array().empty()) return std::nullopt;
    if (reply.as_array().size() != kPublicSize)
        throw ServerError("push_get: a reply of another shape");
    return info_of(reply);
}

std::optional<PushTargets::ForPusher> decode_read(const Reply& reply) {
    const auto& r = reply.as_array();
    if (r.empty()) return std::nullopt;
    if (r.size() != kReadSize) throw ServerError("push_read: a reply of another shape");
    PushTargetInfo info = info_of(reply);
    PushTargets::ForPusher out;
    out.updated = info.updated;
    PushTarget& t = out.target;
    t.url = std::move(info.url);
    t.method = info.method;
    t.content_type = std::move(info.content_type);
    t.request_timeout = info.request_timeout;
    t.max_in_flight = info.max_in_flight;
    t.rate = info.rate;
    const auto& values = r.at(kHeaderValues).as_array();
    if (values.size() != info.header_names.size()) {
        throw ServerError("push_read: header values do not match their names");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
        t.headers.push_back({std::move(info.header_names[i]), values[i].as_string()});
    }
    for (const Reply& secret : r.at(kSecretValues).as_array()) {
        t.secrets.push_back(secret.as_string());
    }
    return out;
}

bool decode_remove(const Reply& reply) { return reply.as_int() == 1; }

ScriptArgs encode_record(int status, std::string_view error) {
    if (status < 0 || status > 999) throw InvalidArgument("an HTTP status is 0 to 999");
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(status));
    args.add(error.substr(0, kMaxErrorBytes));
    return args;
}

ScriptArgs encode_lease(std::size_t max_count) {
    if (max_count < 1 || max_count > kMaxBatch) {
        throw InvalidArgument("a push lease takes 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(max_count));
    return args;
}

PushLeases decode_lease(Reply reply, const std::string& queue) {
    PushLeases out;
    out.limited = reply.at(kLimited).as_int() == 1;
    out.has_target = reply.at(kHasTarget).as_int() == 1;
    out.fetch = fetch_codec::decode(std::move(reply), queue);
    return out;
}

}  // namespace delayq::detail::push_codec
