#pragma once

#include <chrono>
#include <cstddef>
#include <delayq/delivery.hpp>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

// The JSON bodies of the lease routes (docs/http.md, Leases): what POST .../leases, ack, extend,
// release, nack and reject take and answer. Parsing throws InvalidArgument (a 400, nothing
// written) naming the field; unknown fields are refused.
namespace delayq::server {

inline constexpr std::size_t kMaxLeasesPerRequest = 1000;
inline constexpr Duration kMaxLeaseWait = std::chrono::seconds(60);

// {"max": 1..1000, "visibility": DUR, "wait": DUR up to 60s}, each optional.
struct LeaseRequest {
    std::size_t max = 1;
    Duration visibility = std::chrono::seconds(30);
    Duration wait{0};
};
LeaseRequest parse_lease_request(const nlohmann::json& body);

// {"deliveries": [append_delivery...]}, as text (json_text.hpp: up to 1000 of them an answer).
std::string deliveries_text(std::span<const Delivery> deliveries);

// ack and release: {"leases": [1 to 1000 lease strings]}.
std::vector<Lease> parse_lease_list(const nlohmann::json& body);

// extend: {"leases": [...], "visibility": DUR}.
struct ExtendRequest {
    std::vector<Lease> leases;
    Duration visibility{};
};
ExtendRequest parse_extend(const nlohmann::json& body);

// {"results": [{"lease", "status": "ok"|"lease_lost", "deadline_ms" (extended)}...]}, one per
// lease in request order, as text.
std::string lease_results_text(std::span<const Lease> leases, std::span<const LeaseResult> results);

// nack: {"lease", "delay"?, "error"?}
struct NackRequest {
    Lease lease;
    Nack nack;
};
NackRequest parse_nack(const nlohmann::json& body);

// reject: {"lease", "error"?}
struct RejectRequest {
    Lease lease;
    Reject reject;
};
RejectRequest parse_reject(const nlohmann::json& body);

// A nack's or a reject's outcome: {"status": "retrying"|"dead_lettered"|"lease_lost",
// "due_ms" (retrying)}.
nlohmann::json outcome_json(const LeaseResult& result);

}  // namespace delayq::server
