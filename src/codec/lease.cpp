#include "codec/lease.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "keys.hpp"
#include "validate.hpp"

namespace delayq::detail::lease_codec {
namespace {

void add_leases(ScriptArgs& args, std::span<const Lease> leases) {
    if (leases.empty() || leases.size() > kMaxBatch) {
        throw InvalidArgument("between 1 and " + std::to_string(kMaxBatch) + " leases per call");
    }
    for (const Lease& lease : leases) args.add_owned(lease.to_string());
}

LeaseResult with_status(LeaseStatus status) { return LeaseResult{.status = status}; }

// nack.lua's reply: {'retry', due_ms} | {'dead', reason, attempts} | {'lost', 0}.
constexpr std::size_t kNackStatus = 0;
constexpr std::size_t kNackDue = 1;
constexpr std::size_t kNackReason = 1;
constexpr std::size_t kNackAttempts = 2;

}  // namespace

ScriptArgs encode_ack(std::span<const Lease> leases) {
    ScriptArgs args;
    add_leases(args, leases);
    return args;
}

std::vector<LeaseResult> decode_ack(const Reply& reply, std::size_t leases) {
    std::vector<LeaseResult> out;
    if (reply.type == Reply::Type::kInteger) {
        // Every lease was held: the script says so with their count instead of n ones.
        if (reply.integer != static_cast<std::int64_t>(leases)) {
            throw ServerError("ack: " + std::to_string(reply.integer) + " acked of " +
                              std::to_string(leases));
        }
        out.assign(leases, with_status(LeaseStatus::kAcked));
        return out;
    }
    for (const auto& x : reply.as_array()) {
        out.push_back(with_status(x.as_int() == 1 ? LeaseStatus::kAcked : LeaseStatus::kLost));
    }
    return out;
}

ScriptArgs encode_extend(std::span<const Lease> leases, Duration visibility) {
    ScriptArgs args;
    args.add(validate_visibility(visibility));
    add_leases(args, leases);
    return args;
}

std::vector<LeaseResult> decode_extend(const Reply& reply) {
    std::vector<LeaseResult> out;
    for (const auto& x : reply.as_array()) {
        const std::int64_t deadline = x.as_int();
        out.push_back(deadline > 0
                          ? LeaseResult{.status = LeaseStatus::kExtended, .at = unix_ms(deadline)}
                          : with_status(LeaseStatus::kLost));
    }
    return out;
}

ScriptArgs encode_release(std::span<const Lease> leases) {
    ScriptArgs args;
    add_leases(args, leases);
    return args;
}

std::vector<LeaseResult> decode_release(const Reply& reply) {
    std::vector<LeaseResult> out;
    for (const auto& x : reply.as_array()) {
        out.push_back(with_status(x.as_int() == 1 ? LeaseStatus::kReleased : LeaseStatus::kLost));
    }
    return out;
}

ScriptArgs encode_nack(const Lease& lease, const NackCall& call) {
    ScriptArgs args;
    add_leases(args, std::span(&lease, 1));
    if (call.delay) {
        args.add(validate_delay(*call.delay, "nack delay"));
    } else {
        args.add(std::string_view{});
    }
    args.add(call.error.substr(0, std::min(call.error.size(), kMaxErrorBytes)));
    args.add(call.dead_now ? std::string_view("dead") : std::string_view("retry"));
    return args;
}

LeaseResult decode_nack(const Reply& reply) {
    const std::string& status = reply.at(kNackStatus).as_string();
    if (status == "retry") {
        return LeaseResult{.status = LeaseStatus::kRetrying,
                           .at = unix_ms(reply.at(kNackDue).as_int())};
    }
    if (status == "dead") {
        return LeaseResult{.status = LeaseStatus::kDeadLettered,
                           .dead_reason = reply.at(kNackReason).as_string(),
                           .attempts = static_cast<int>(reply.at(kNackAttempts).as_int())};
    }
    return with_status(LeaseStatus::kLost);
}

}  // namespace delayq::detail::lease_codec
