#include "codec/fetch.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "keys.hpp"
#include "validate.hpp"

namespace delayq::detail::fetch_codec {
namespace {

// The reply: {now_us, next_ms, deliveries, dead_events}.
constexpr std::size_t kNow = 0;
constexpr std::size_t kNext = 1;
constexpr std::size_t kDeliveries = 2;
constexpr std::size_t kDeadEvents = 3;
// A run of deliveries opens with a header: attempt, max_attempts, count, due_ms (-1: each
// delivery carries its own).
constexpr std::size_t kRunAttempt = 0;
constexpr std::size_t kRunMaxAttempts = 1;
constexpr std::size_t kRunCount = 2;
constexpr std::size_t kRunDue = 3;
constexpr std::size_t kRunHeader = 4;
// Then per delivery: lease, payload, from the second attempt on the last error, then its due_ms
// when the run's is -1.
constexpr std::size_t kLease = 0;
constexpr std::size_t kPayload = 1;
constexpr std::size_t kLastError = 2;
// A dead event: id, reason, attempts.
constexpr std::size_t kEventId = 0;
constexpr std::size_t kEventReason = 1;
constexpr std::size_t kEventAttempts = 2;
constexpr std::size_t kEventSize = 3;

}  // namespace

ScriptArgs encode(std::size_t max_count, Duration visibility) {
    if (max_count < 1 || max_count > kMaxBatch) {
        throw InvalidArgument("fetch takes 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(max_count));
    args.add(validate_visibility(visibility));
    return args;
}

FetchResult decode(Reply reply, const std::string& queue) {
    FetchResult out;
    const std::int64_t now_us = reply.at(kNow).as_int();
    if (now_us < 0) throw ServerError("fetch: a negative time");
    out.now = unix_ms(now_us / 1000);
    out.now_micros = std::chrono::microseconds(now_us % 1000);
    out.next = optional_unix_ms(reply.at(kNext).as_int());
    reply.at(kDeliveries).as_array();  // checks the shape; the payloads are then moved out
    auto& d = reply.elements[kDeliveries].elements;
    out.deliveries.reserve(d.size() / 2);
    std::size_t at = 0;
    while (at < d.size()) {
        if (at + kRunHeader > d.size()) throw ServerError("fetch: a delivery run without header");
        const auto attempt = static_cast<int>(d[at + kRunAttempt].as_int());
        const auto max_attempts = static_cast<int>(d[at + kRunMaxAttempts].as_int());
        const std::int64_t count = d[at + kRunCount].as_int();
        const std::int64_t run_due = d[at + kRunDue].as_int();
        const bool with_error = attempt > 1;
        const bool own_due = run_due < 0;
        const std::size_t width = 2 + (with_error ? 1 : 0) + (own_due ? 1 : 0);
        at += kRunHeader;
        if (count < 1 || static_cast<std::uint64_t>(count) > (d.size() - at) / width) {
            throw ServerError("fetch: a delivery run of " + std::to_string(count) +
                              " with room for fewer");
        }
        for (std::int64_t k = 0; k < count; ++k, at += width) {
            const auto [token, id] = split_lease(d[at + kLease].as_string());
            std::string last_error = with_error ? std::move(d[at + kLastError].str) : std::string();
            const TimePoint due = unix_ms(own_due ? d[at + width - 1].as_int() : run_due);
            out.deliveries.emplace_back(queue, Lease(std::string(id), token),
                                        std::move(d[at + kPayload].str), attempt, max_attempts, due,
                                        out.now, std::move(last_error));
        }
    }
    const auto& e = reply.at(kDeadEvents).as_array();
    for (std::size_t i = 0; i + kEventSize <= e.size(); i += kEventSize) {
        out.dead_lettered.push_back(
            DeadLetterEvent{queue, e[i + kEventId].as_string(), e[i + kEventReason].as_string(),
                            static_cast<int>(e[i + kEventAttempts].as_int())});
    }
    return out;
}

}  // namespace delayq::detail::fetch_codec
