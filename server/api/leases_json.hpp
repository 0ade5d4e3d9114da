#pragma once

#include <chrono>
#include <cstddef>
#include <delayq/delivery.hpp>
#include <delayq/types.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "auth/lease_seal.hpp"

// The JSON bodies of the lease routes (docs/http.md, Leases): what POST .../leases, ack, extend,
// release, nack and reject take and answer. Parsing throws InvalidArgument (a 400, nothing
// written) naming the field; unknown fields are refused.
namespace delayq::server {

inline constexpr Duration kMaxLeaseWait = std::chrono::seconds(60);

// {"max": 1..kMaxBatch, "visibility": DUR, "wait": DUR up to 60s}, each optional.
struct LeaseRequest {
    std::size_t max = 1;
    Duration visibility = std::chrono::seconds(30);
    Duration wait{0};
};
LeaseRequest parse_lease_request(const nlohmann::json& body);

// {"deliveries": [append_delivery...]}, as text (json/text.hpp: up to kMaxBatch an answer),
// each lease sealed for its delivery's queue.
std::string deliveries_text(std::span<const Delivery> deliveries, const auth::LeaseSeal& seal);

// What the lease routes open the leases of a request with: the seal, for the route's queue. The
// seal is asked for only once every lease string of the request has the shape of one, so that
// a 400 reads (and makes) no key.
struct LeaseOpener {
    std::function<const auth::LeaseSeal&()> seal;
    std::string_view queue;
};

// A lease a request names: the text the client sent (its result echoes it) and the lease, when
// its seal holds for the queue. Text that is no lease at all, sealed or not, is a 400.
struct LeaseArg {
    std::string text;
    std::optional<Lease> lease;  // nullopt: forged, unsealed or another queue's: lease_lost
};

// ack and release: {"leases": [1 to kMaxBatch lease strings]}.
std::vector<LeaseArg> parse_lease_list(const nlohmann::json& body, const LeaseOpener& opener);

// extend: {"leases": [...], "visibility": DUR}.
struct ExtendRequest {
    std::vector<LeaseArg> leases;
    Duration visibility{};
};
ExtendRequest parse_extend(const nlohmann::json& body, const LeaseOpener& opener);

// {"results": [{"lease", "status": "ok"|"lease_lost", "deadline_ms" (extended)}...]}, one per
// lease in request order, as text.
std::string lease_results_text(std::span<const LeaseArg> leases,
                               std::span<const LeaseResult> results);

// nack: {"lease", "delay"?, "error"?}
struct NackRequest {
    LeaseArg lease;
    Nack nack;
};
NackRequest parse_nack(const nlohmann::json& body, const LeaseOpener& opener);

// reject: {"lease", "error"?}
struct RejectRequest {
    LeaseArg lease;
    Reject reject;
};
RejectRequest parse_reject(const nlohmann::json& body, const LeaseOpener& opener);

// A nack's or a reject's outcome: {"status": "retrying"|"dead_lettered"|"lease_lost",
// "due_ms" (retrying)}.
nlohmann::json outcome_json(const LeaseResult& result);

}  // namespace delayq::server
