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

// The lease string of a field, or a 400 naming it: a check that needs no key.
const std::string& lease_text(const json& value, const std::string& name) {
    if (!value.is_string() || !auth::LeaseSeal::is_lease(value.get_ref<const std::string&>())) {
        throw InvalidArgument(name + " is not a lease (the string a delivery's \"lease\" holds)");
    }
    return value.get_ref<const std::string&>();
}

LeaseArg open_lease(const std::string& text, const LeaseOpener& opener) {
    auto opened = opener.seal().open(opener.queue, text);
    if (!opened || !opened->authentic) return {text, std::nullopt};
    return {text, std::move(opened->lease)};
}

// The list of lease strings, each checked (a 400 naming the first bad one); opened later, once
// the whole body is good.
const json& leases_field(const json& value) {
    if (!value.is_array() || value.empty() || value.size() > kMaxLeasesPerRequest) {
        throw InvalidArgument("leases must be a list of 1 to " +
                              std::to_string(kMaxLeasesPerRequest) + " leases");
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
        lease_text(value[i], "leases[" + std::to_string(i) + "]");
    }
    return value;
}

std::vector<LeaseArg> open_leases(const json& list, const LeaseOpener& opener) {
    std::vector<LeaseArg> out;
    out.reserve(list.size());
    for (const json& v : list) out.push_back(open_lease(v.get_ref<const std::string&>(), opener));
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

std::string deliveries_text(std::span<const Delivery> deliveries, const auth::LeaseSeal& seal) {
    // A delivery of a 16-byte payload takes about 220 bytes.
    return json_list_text("deliveries", deliveries.size(), 256,
                          [&](std::string& out, std::size_t i) {
                              const Delivery& d = deliveries[i];
                              append_delivery(out, d, seal.seal(d.queue(), d.lease()));
                          });
}

std::vector<LeaseArg> parse_lease_list(const json& body, const LeaseOpener& opener) {
    require_object(body, "a body of leases");
    const json* leases = nullptr;
    for (const auto& [key, v] : body.items()) {
        if (key != "leases") unknown_field(key);
        leases = &leases_field(v);
    }
    if (leases == nullptr) throw InvalidArgument("the body needs \"leases\": [...]");
    return open_leases(*leases, opener);
}

ExtendRequest parse_extend(const json& body, const LeaseOpener& opener) {
    require_object(body, "an extend request");
    ExtendRequest r;
    const json* leases = nullptr;
    bool has_visibility = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "leases") {
            leases = &leases_field(v);
        } else if (key == "visibility") {
            r.visibility = duration_field(v, "visibility");
            if (r.visibility.count() < 1) throw InvalidArgument("visibility must be at least 1ms");
            has_visibility = true;
        } else {
            unknown_field(key);
        }
    }
    if (leases == nullptr) throw InvalidArgument("an extend request needs \"leases\": [...]");
    if (!has_visibility) throw InvalidArgument("an extend request needs \"visibility\"");
    r.leases = open_leases(*leases, opener);
    return r;
}

std::string lease_results_text(std::span<const LeaseArg> leases,
                               std::span<const LeaseResult> results) {
    return json_list_text("results", std::min(leases.size(), results.size()), 80,
                          [&](std::string& out, std::size_t i) {
                              out.append(R"({"lease":)");
                              append_json_string(out, leases[i].text);
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

NackRequest parse_nack(const json& body, const LeaseOpener& opener) {
    require_object(body, "a nack");
    NackRequest r;
    std::string text;
    bool has_lease = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            text = lease_text(v, "lease");
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
    r.lease = open_lease(text, opener);
    return r;
}

RejectRequest parse_reject(const json& body, const LeaseOpener& opener) {
    require_object(body, "a reject");
    RejectRequest r;
    std::string text;
    bool has_lease = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            text = lease_text(v, "lease");
            has_lease = true;
        } else if (key == "error") {
            r.reject.error = string_field(v, "error");
        } else {
            unknown_field(key);
        }
    }
    if (!has_lease) throw InvalidArgument("a reject needs \"lease\"");
    r.lease = open_lease(text, opener);
    return r;
}

json outcome_json(const LeaseResult& result) {
    json out = {{"status", status_text(result.status)}};
    if (result.status == LeaseStatus::kRetrying) out["due_ms"] = unix_ms(result.at);
    return out;
}

}  // namespace delayq::server
