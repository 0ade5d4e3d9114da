#pragma once

// IP addresses and CIDR ranges as the push address policy compares them (push/address.cpp):
// bytes in network order, so that a range test is a prefix comparison.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace delayq::detail {

struct IpAddress {
    bool v6 = false;
    // An IPv4 address in the first 4 bytes, the rest zero.
    std::array<std::uint8_t, 16> bytes{};

    std::size_t bits() const { return v6 ? 128 : 32; }
    bool operator==(const IpAddress&) const = default;
};

// The IPv4 address an IPv6 one stands for, when it embeds one that a connection reaches:
// IPv4-mapped (::ffff:a.b.c.d, which the kernel sends as IPv4) and the NAT64 well-known prefix
// (64:ff9b::a.b.c.d, RFC 6052, which a NAT64 gateway translates to it). Not the local-use NAT64
// prefix (64:ff9b:1::/48, RFC 8215), where the operator's prefix length places the IPv4 address,
// nor the deprecated IPv4-compatible (::a.b.c.d) and 6to4 (2002::/16) forms, which are tunnelled
// IPv6 and reach an IPv6 host at best: those stay IPv6 addresses.
std::optional<IpAddress> embedded_ipv4(const IpAddress& address);

struct Cidr {
    IpAddress base;  // its bits past the prefix are zero
    std::size_t prefix = 0;

    bool contains(const IpAddress& address) const;
};

// A literal as inet_pton reads it: dotted-decimal IPv4, or IPv6 without a zone. nullopt for
// anything else.
std::optional<IpAddress> parse_ip(std::string_view text);

// An address ("10.1.2.3", a /32 or /128) or a range ("10.1.2.0/24", "fd00::/8"). The prefix
// length is decimal without a sign or leading zeros, at most the family's bits; the base has
// no bits set past it (a typo of the range meant, more likely than a wish for the whole of it).
// Throws InvalidArgument saying what is wrong, without quoting the text.
Cidr parse_cidr(std::string_view text);

}  // namespace delayq::detail
