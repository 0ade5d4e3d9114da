#include "send_durability.hpp"

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <random>

namespace delayq::detail {
namespace {

// Ids named in the error's text; all of them are in DurabilityError::ids.
constexpr std::size_t kIdsInText = 10;

std::string ids_text(const std::vector<std::string>& ids) {
    std::string text;
    for (std::size_t i = 0; i < ids.size() && i < kIdsInText; ++i) {
        if (i > 0) text += ", ";
        text += ids[i];
    }
    if (ids.size() > kIdsInText)
        text += " and " + std::to_string(ids.size() - kIdsInText) + " more";
    return text;
}

}  // namespace

DurabilityError not_replicated(std::vector<std::string> ids, std::string_view queue,
                               const Durability& durability, const ReplicaAck& ack) {
    std::string what = "queue " + std::string(queue) + ": ";
    if (ack.failure.empty()) {
        what += std::to_string(ack.confirmed) + " of " + std::to_string(durability.replicas) +
                " replicas confirmed the send within " +
                std::to_string(durability.timeout.count()) + " ms";
    } else {
        what += "no replica confirmation for the send (" + ack.failure + ")";
    }
    what +=
        "; stored on the primary, possibly not to survive its failover: send again with the "
        "same ids (" +
        ids_text(ids) + ")";
    return DurabilityError(std::move(ids), durability.replicas, ack.confirmed, what);
}

std::string durable_id() {
    thread_local std::mt19937_64 random{std::random_device{}()};
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(us),
                  static_cast<unsigned long long>(random()));
    return std::string(text, 32);
}

std::vector<std::string> ids_of(std::span<const SendResult> results) {
    std::vector<std::string> ids;
    ids.reserve(results.size());
    for (const SendResult& r : results) ids.push_back(r.id);
    return ids;
}

}  // namespace delayq::detail
