#include "redis/slot_map.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

[[noreturn]] void malformed(std::string_view command, std::string_view why) {
    throw ServerError("cannot read the cluster's slot map from " + std::string(command) + ": " +
                      std::string(why));
}

// A number that Redis versions send as an integer or as text.
std::optional<std::int64_t> number(const Reply& reply) {
    if (reply.type == Reply::Type::kInteger) return reply.integer;
    if (reply.type != Reply::Type::kString) return std::nullopt;
    std::int64_t value = 0;
    const auto [end, ec] =
        std::from_chars(reply.str.data(), reply.str.data() + reply.str.size(), value);
    if (ec != std::errc{} || end != reply.str.data() + reply.str.size()) return std::nullopt;
    return value;
}

// A flat array of name, value, name, value... (a RESP2 map): the value named `name`.
const Reply* field(const Reply& map, std::string_view name) {
    const auto& items = map.as_array();
    for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
        if (items[i].type == Reply::Type::kString && items[i].str == name) return &items[i + 1];
    }
    return nullptr;
}

std::string text_field(const Reply& map, std::string_view name) {
    const Reply* value = field(map, name);
    return value != nullptr && value->type == Reply::Type::kString ? value->str : std::string();
}

// The announced endpoint when it is usable ("?" is Redis's "unknown"), else the IP, else the
// host that answered.
std::string connect_host(const std::string& endpoint, const std::string& ip,
                         const std::string& asked_host) {
    if (!endpoint.empty() && endpoint != "?") return endpoint;
    if (!ip.empty() && ip != "?") return ip;
    return asked_host;
}

ClusterNode shard_primary(const Reply& nodes, bool tls, const std::string& asked_host) {
    for (const Reply& node : nodes.as_array()) {
        if (text_field(node, "role") != "master") continue;
        const Reply* port = tls && field(node, "tls-port") != nullptr ? field(node, "tls-port")
                                                                      : field(node, "port");
        const auto p = port != nullptr ? number(*port) : std::nullopt;
        if (!p || *p < 1 || *p > 65535) malformed("CLUSTER SHARDS", "a primary without a port");
        ClusterNode out;
        out.host = connect_host(text_field(node, "endpoint"), text_field(node, "ip"), asked_host);
        if (out.host.empty()) malformed("CLUSTER SHARDS", "a primary without an address");
        out.port = static_cast<int>(*p);
        const std::string hostname = text_field(node, "hostname");
        out.tls_name = hostname.empty() ? out.host : hostname;
        return out;
    }
    malformed("CLUSTER SHARDS", "a shard that serves slots has no primary");
}

}  // namespace

void SlotMap::assign(const ClusterNode& node, std::int64_t first, std::int64_t last) {
    if (first < 0 || last >= kClusterSlots || first > last) {
        throw ServerError("cannot read the cluster's slot map: a slot range " +
                          std::to_string(first) + "-" + std::to_string(last));
    }
    auto it = std::find(primaries_.begin(), primaries_.end(), node);
    if (it == primaries_.end()) it = primaries_.insert(primaries_.end(), node);
    const auto index = static_cast<std::int16_t>(it - primaries_.begin());
    std::fill(owners_.begin() + first, owners_.begin() + last + 1, index);
}

SlotMap SlotMap::from_shards(const Reply& reply, bool tls, const std::string& asked_host) {
    SlotMap map;
    for (const Reply& shard : reply.as_array()) {
        const Reply* slots = field(shard, "slots");
        const Reply* nodes = field(shard, "nodes");
        if (slots == nullptr || nodes == nullptr) malformed("CLUSTER SHARDS", "a shard's fields");
        const auto& ranges = slots->as_array();
        if (ranges.empty()) continue;  // a shard without slots (a new or emptied node)
        if (ranges.size() % 2 != 0) malformed("CLUSTER SHARDS", "an odd slot list");
        const ClusterNode node = shard_primary(*nodes, tls, asked_host);
        for (std::size_t i = 0; i < ranges.size(); i += 2) {
            const auto first = number(ranges[i]);
            const auto last = number(ranges[i + 1]);
            if (!first || !last) malformed("CLUSTER SHARDS", "a slot that is not a number");
            map.assign(node, *first, *last);
        }
    }
    return map;
}

SlotMap SlotMap::from_slots(const Reply& reply, const std::string& asked_host) {
    SlotMap map;
    for (const Reply& range : reply.as_array()) {
        // start, end, then the primary: ip, port, id[, more], then its replicas.
        const auto first = number(range.at(0));
        const auto last = number(range.at(1));
        const Reply& primary = range.at(2);
        const auto port = number(primary.at(1));
        if (!first || !last || !port || *port < 1 || *port > 65535) {
            malformed("CLUSTER SLOTS", "a range's numbers");
        }
        ClusterNode node;
        const std::string ip =
            primary.at(0).type == Reply::Type::kString ? primary.at(0).str : std::string();
        node.host = connect_host(ip, std::string(), asked_host);
        if (node.host.empty()) malformed("CLUSTER SLOTS", "a primary without an address");
        node.port = static_cast<int>(*port);
        node.tls_name = node.host;
        map.assign(node, *first, *last);
    }
    return map;
}

const ClusterNode* SlotMap::primary(int slot) const {
    if (slot < 0 || slot >= kClusterSlots) return nullptr;
    const std::int16_t index = owners_[static_cast<std::size_t>(slot)];
    return index < 0 ? nullptr : &primaries_[static_cast<std::size_t>(index)];
}

int SlotMap::covered() const {
    return static_cast<int>(std::count_if(owners_.begin(), owners_.end(),
                                          [](std::int16_t owner) { return owner >= 0; }));
}

}  // namespace delayq::detail
