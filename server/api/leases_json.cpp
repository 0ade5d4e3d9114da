#include "api/leases_json.hpp"

#include <algorithm>
#include <delayq/error.hpp>
#include <string>

#include "api/json_fields.hpp"
#include "api/json_text.hpp"
#include "api/messages_json.hpp"

namespace delayq::server {
namespace {

using nlohmann::json;

Lease lease_field(const json& value, const std::string& name) {
    if (value.is_string()) {
        if (auto lease = Lease::parse(value.get<std::string>())) return *lease;
    }
    throw InvalidArgument(name + " is not a lease (the string a delivery's \"lease\" holds)");
}

std::vector<Lease> leases_field(const json& value) {
    if (!value.is_array() || value.empty() || value.size() > kMaxLeasesPerRequest) {
        throw InvalidArgument("leases must be a list of 1 to " +
                              std::to_string(kMaxLeasesPerRequest) + " leases");
    }
    std::vector<Lease> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        out.push_back(lease_field(value[i], "leases[" + std::to_string(i) + "]"));
    }
    return out;
}

const char* status_text(LeaseStatus status) {
    switch (status) {
        case LeaseStatus::kAcked:
        case LeaseStatus::kExtended:
        case LeaseStatus::kReleased:
            return "ok";
        case LeaseStatus::kRetrying:
            return "retrying";
        case LeaseStatus::kDeadLettered:
            return "dead_lettered";
        case LeaseStatus::kLost:
            break;
    }
    return "lease_lost";
}

}  // namespace

LeaseRequest parse_lease_request(const json& body) {
    require_object(body, "a lease request");
    LeaseRequest r;
    for (const auto& [key, v] : body.items()) {
        if (key == "max") {
            r.max = count_field(v, "max", 1, kMaxLeasesPerRequest);
        } else if (key == "visibility") {
            r.visibility = duration_field(v, "visibility");
            if (r.visibility.count() < 1) throw InvalidArgument("visibility must be at least 1ms");
        } else if (key == "wait") {
            r.wait = duration_field(v, "wait");
            if (r.wait > kMaxLeaseWait) throw InvalidArgument("wait must be at most 60s");
        } else {
            unknown_field(key);
        }
    }
    return r;
}

std::string deliveries_text(std::span<const Delivery> deliveries) {
    // A delivery of a 16-byte payload takes about 200 bytes.
    return json_list_text(
        "deliveries", deliveries.size(), 224,
        [&](std::string& out, std::size_t i) { append_delivery(out, deliveries[i]); });
}

std::vector<Lease> parse_lease_list(const json& body) {
    require_object(body, "a body of leases");
    std::vector<Lease> leases;
    bool found = false;
    for (const auto& [key, v] : body.items()) {
        if (key != "leases") unknown_field(key);
        leases = leases_field(v);
        found = true;
    }
    if (!found) throw InvalidArgument("the body needs \"leases\": [...]");
    return leases;
}

ExtendRequest parse_extend(const json& body) {
    require_object(body, "an extend request");
    ExtendRequest r;
    bool has_leases = false;
    bool has_visibility = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "leases") {
            r.leases = leases_field(v);
            has_leases = true;
        } else if (key == "visibility") {
            r.visibility = duration_field(v, "visibility");
            if (r.visibility.count() < 1) throw InvalidArgument("visibility must be at least 1ms");
            has_visibility = true;
        } else {
            unknown_field(key);
        }
    }
    if (!has_leases) throw InvalidArgument("an extend request needs \"leases\": [...]");
    if (!has_visibility) throw InvalidArgument("an extend request needs \"visibility\"");
    return r;
}

std::string lease_results_text(std::span<const Lease> leases,
                               std::span<const LeaseResult> results) {
    return json_list_text("results", std::min(leases.size(), results.size()), 80,
                          [&](std::string& out, std::size_t i) {
                              out.append(R"({"lease":)");
                              append_json_string(out, leases[i].to_string());
                              out.append(R"(,"status":")");
                              out.append(status_text(results[i].status));
                              out.push_back('"');
                              if (results[i].status == LeaseStatus::kExtended) {
                                  out.append(R"(,"deadline_ms":)");
                                  out.append(std::to_string(unix_ms(results[i].at)));
                              }
                              out.push_back('}');
                          });
}

NackRequest parse_nack(const json& body) {
    require_object(body, "a nack");
    NackRequest r;
    bool has_lease = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            r.lease = lease_field(v, "lease");
            has_lease = true;
        } else if (key == "delay") {
            r.nack.delay = duration_field(v, "delay");
        } else if (key == "error") {
            r.nack.error = string_field(v, "error");
        } else {
            unknown_field(key);
        }
    }
    if (!has_lease) throw InvalidArgument("a nack needs \"lease\"");
    return r;
}

RejectRequest parse_reject(const json& body) {
    require_object(body, "a reject");
    RejectRequest r;
    bool has_lease = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            r.lease = lease_field(v, "lease");
            has_lease = true;
        } else if (key == "error") {
            r.reject.error = string_field(v, "error");
        } else {
            unknown_field(key);
        }
    }
    if (!has_lease) throw InvalidArgument("a reject needs \"lease\"");
    return r;
}

json outcome_json(const LeaseResult& result) {
    json out = {{"status", status_text(result.status)}};
    if (result.status == LeaseStatus::kRetrying) out["due_ms"] = unix_ms(result.at);
    return out;
}

}  // namespace delayq::server
