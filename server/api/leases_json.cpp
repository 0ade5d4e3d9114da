#include "api/leases_json.hpp"

#include <algorithm>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <optional>
#include <string>

#include "json/fields.hpp"
#include "json/message.hpp"
#include "json/text.hpp"

namespace delayq::server {
namespace {

using json::append_delivery;
using json::append_json_string;
using json::count_field;
using json::duration_field;
using json::Json;
using json::json_list_text;
using json::require_object;
using json::string_field;
using json::unix_ms;
using json::unknown_field;

// A lease field taken apart: the text it holds and the lease in it, or a 400 naming the field
// (`name` is called only then). A check that needs no key.
struct LeaseField {
    const std::string* text;
    auth::LeaseSeal::Unsealed unsealed;  // views into *text
};

template <class Name>
LeaseField lease_field(const Json& value, const Name& name) {
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (auto unsealed = auth::LeaseSeal::unseal(text)) return {&text, std::move(*unsealed)};
    }
    throw InvalidArgument(name() + " is not a lease (the string a delivery's \"lease\" holds)");
}

LeaseArg open_lease(LeaseField field, const LeaseOpener& opener) {
    if (!opener.seal().authentic(opener.queue, field.unsealed)) return {*field.text, std::nullopt};
    return {*field.text, std::move(field.unsealed.lease)};
}

// The list of lease strings, each checked (a 400 naming the first bad one); opened later, once
// the whole body is good.
std::vector<LeaseField> leases_field(const Json& value) {
    if (!value.is_array() || value.empty() || value.size() > kMaxBatch) {
        throw InvalidArgument("leases must be a list of 1 to " + std::to_string(kMaxBatch) +
                              " leases");
    }
    std::vector<LeaseField> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        out.push_back(lease_field(value[i], [i] { return "leases[" + std::to_string(i) + "]"; }));
    }
    return out;
}

std::vector<LeaseArg> open_leases(std::vector<LeaseField> fields, const LeaseOpener& opener) {
    std::vector<LeaseArg> out;
    out.reserve(fields.size());
    for (LeaseField& f : fields) out.push_back(open_lease(std::move(f), opener));
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

LeaseRequest parse_lease_request(const Json& body) {
    require_object(body, "a lease request");
    LeaseRequest r;
    for (const auto& [key, v] : body.items()) {
        if (key == "max") {
            r.max = count_field(v, "max", 1, kMaxBatch);
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
    std::string lease;  // one buffer for every sealed lease
    // A delivery of a 16-byte payload takes about 220 bytes.
    return json_list_text("deliveries", deliveries.size(), 256,
                          [&](std::string& out, std::size_t i) {
                              const Delivery& d = deliveries[i];
                              lease.clear();
                              seal.append_sealed(lease, d.queue(), d.lease());
                              append_delivery(out, d, lease);
                          });
}

std::vector<LeaseArg> parse_lease_list(const Json& body, const LeaseOpener& opener) {
    require_object(body, "a body of leases");
    std::optional<std::vector<LeaseField>> leases;
    for (const auto& [key, v] : body.items()) {
        if (key != "leases") unknown_field(key);
        leases = leases_field(v);
    }
    if (!leases) throw InvalidArgument("the body needs \"leases\": [...]");
    return open_leases(std::move(*leases), opener);
}

ExtendRequest parse_extend(const Json& body, const LeaseOpener& opener) {
    require_object(body, "an extend request");
    ExtendRequest r;
    std::optional<std::vector<LeaseField>> leases;
    bool has_visibility = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "leases") {
            leases = leases_field(v);
        } else if (key == "visibility") {
            r.visibility = duration_field(v, "visibility");
            if (r.visibility.count() < 1) throw InvalidArgument("visibility must be at least 1ms");
            has_visibility = true;
        } else {
            unknown_field(key);
        }
    }
    if (!leases) throw InvalidArgument("an extend request needs \"leases\": [...]");
    if (!has_visibility) throw InvalidArgument("an extend request needs \"visibility\"");
    r.leases = open_leases(std::move(*leases), opener);
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

NackRequest parse_nack(const Json& body, const LeaseOpener& opener) {
    require_object(body, "a nack");
    NackRequest r;
    std::optional<LeaseField> lease;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            lease = lease_field(v, [] { return std::string("lease"); });
        } else if (key == "delay") {
            r.nack.delay = duration_field(v, "delay");
        } else if (key == "error") {
            r.nack.error = string_field(v, "error");
        } else {
            unknown_field(key);
        }
    }
    if (!lease) throw InvalidArgument("a nack needs \"lease\"");
    r.lease = open_lease(std::move(*lease), opener);
    return r;
}

RejectRequest parse_reject(const Json& body, const LeaseOpener& opener) {
    require_object(body, "a reject");
    RejectRequest r;
    std::optional<LeaseField> lease;
    for (const auto& [key, v] : body.items()) {
        if (key == "lease") {
            lease = lease_field(v, [] { return std::string("lease"); });
        } else if (key == "error") {
            r.reject.error = string_field(v, "error");
        } else {
            unknown_field(key);
        }
    }
    if (!lease) throw InvalidArgument("a reject needs \"lease\"");
    r.lease = open_lease(std::move(*lease), opener);
    return r;
}

Json outcome_json(const LeaseResult& result) {
    Json out = {{"status", status_text(result.status)}};
    if (result.status == LeaseStatus::kRetrying) out["due_ms"] = unix_ms(result.at);
    return out;
}

}  // namespace delayq::server
