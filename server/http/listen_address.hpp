#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace delayq::server::http {

struct ListenAddress {
    std::string host;  // a name or an address; IPv6 without its brackets
    std::uint16_t port = 0;
};

// "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all addresses); port 0 picks a free one. Throws
// InvalidArgument saying what is wrong.
ListenAddress parse_listen_address(std::string_view text);

}  // namespace delayq::server::http
