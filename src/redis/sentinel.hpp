#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "redis/connection.hpp"
#include "redis/reply.hpp"
#include "redis/url.hpp"

namespace delayq::detail {

// What the sentinels say of a master: where it is.
struct MasterAddress {
    std::string host;
    int port = 0;
    bool operator==(const MasterAddress&) const = default;
};

// SENTINEL GET-MASTER-ADDR-BY-NAME's answer: the address, or nullopt for nil (the sentinel
// monitors no master of that name). Throws ServerError for an error or a malformed reply.
std::optional<MasterAddress> parse_master_address(const Reply& reply);

// ROLE's first element: "master", "slave" or "sentinel". Throws ServerError for another shape.
std::string parse_role(const Reply& reply);

// The new address in a +switch-master message ("<name> <old ip> <old port> <new ip> <new
// port>") when it concerns `master_name`; nullopt for another master's or a malformed one.
std::optional<MasterAddress> parse_switch_master(std::string_view text,
                                                 std::string_view master_name);

// Opens a connection to one sentinel, with the sentinels' own credentials and TLS.
using SentinelConnect = std::function<Connection(const Endpoint&)>;

// Asks each sentinel in turn where `master_name` is: the first that answers with an address
// wins; one that does not know the name, or fails, is passed over. Throws ConfigurationError
// when every sentinel answered that it knows no such master (a mistyped name), else
// ConnectionError naming each sentinel tried and why it gave no address.
MasterAddress ask_sentinels(std::span<const Endpoint> sentinels, const std::string& master_name,
                            const SentinelConnect& connect);

}  // namespace delayq::detail
