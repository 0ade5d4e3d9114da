#include <charconv>
#include <string>
#include <vector>

#include "client_core.hpp"
#include "delayq/client.hpp"
#include "delayq/error.hpp"
#include "redis/info.hpp"
#include "redis/permission.hpp"

namespace delayq {
namespace {

std::uint64_t number(const std::string& text) {
    std::uint64_t n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
}

}  // namespace

std::vector<RedisNodeInfo> Client::redis_info() const {
    std::vector<RedisNodeInfo> nodes;
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        detail::Reply r = conn->command({"INFO", "server", "memory", "clients"});
        detail::check_permission(r, "INFO");
        if (r.is_error()) throw ServerError("INFO failed at " + node->address() + ": " + r.str);
        const std::string& text = r.as_string();
        RedisNodeInfo info;
        info.address = node->address();
        info.version = detail::info_field(text, "redis_version");
        info.used_memory = number(detail::info_field(text, "used_memory"));
        info.maxmemory = number(detail::info_field(text, "maxmemory"));
        info.maxmemory_policy = detail::info_field(text, "maxmemory_policy");
        info.evicts = detail::evicting_policy(info.maxmemory_policy);
        info.connected_clients = number(detail::info_field(text, "connected_clients"));
        nodes.push_back(std::move(info));
    }
    return nodes;
}

}  // namespace delayq
