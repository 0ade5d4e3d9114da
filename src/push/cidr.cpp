#include "push/cidr.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <string>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

// Longer than any literal inet_pton reads ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255").
constexpr std::size_t kMaxLiteral = 63;

// The first `prefix` bits of a and b are the same.
bool same_prefix(const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b,
                 std::size_t prefix) {
    const std::size_t whole = prefix / 8;
    if (!std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(whole), b.begin())) {
        return false;
    }
    const std::size_t rest = prefix % 8;
    if (rest == 0) return true;
    const auto mask = static_cast<std::uint8_t>(0xffU << (8 - rest));
    return (a[whole] & mask) == (b[whole] & mask);
}

std::string text_of(const IpAddress& address) {
    char out[INET6_ADDRSTRLEN] = {};
    inet_ntop(address.v6 ? AF_INET6 : AF_INET, address.bytes.data(), out, sizeof out);
    return out;
}

std::size_t parse_prefix(std::string_view digits, std::size_t most) {
    // Up to nine digits: no overflow, and "/1000" is told that it is too long, not malformed.
    const bool decimal =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        (digits.size() == 1 || digits.front() != '0');
    if (!decimal) {
        throw InvalidArgument(
            "has a prefix length that is not a plain decimal number (no sign, space or leading "
            "zero)");
    }
    std::size_t prefix = 0;
    for (const char c : digits) prefix = prefix * 10 + static_cast<std::size_t>(c - '0');
    if (prefix > most) {
        throw InvalidArgument("has a prefix length of " + std::to_string(prefix) + ", over the " +
                              std::to_string(most) + " bits of its address");
    }
    return prefix;
}

}  // namespace

std::optional<IpAddress> embedded_ipv4(const IpAddress& address) {
    if (!address.v6) return std::nullopt;
    static constexpr std::array<std::uint8_t, 12> kMapped = {0, 0, 0, 0, 0,    0,
                                                             0, 0, 0, 0, 0xff, 0xff};
    static constexpr std::array<std::uint8_t, 12> kNat64 = {0, 0x64, 0xff, 0x9b, 0, 0,
                                                            0, 0,    0,    0,    0, 0};
    const bool mapped = std::equal(kMapped.begin(), kMapped.end(), address.bytes.begin());
    const bool nat64 = std::equal(kNat64.begin(), kNat64.end(), address.bytes.begin());
    if (!mapped && !nat64) return std::nullopt;
    IpAddress v4;
    std::copy_n(address.bytes.begin() + 12, 4, v4.bytes.begin());
    return v4;
}

bool Cidr::contains(const IpAddress& address) const {
    return address.v6 == base.v6 && same_prefix(address.bytes, base.bytes, prefix);
}

std::optional<IpAddress> parse_ip(std::string_view text) {
    // inet_pton reads a C string: a NUL inside would end it early and pass what precedes it.
    if (text.empty() || text.size() > kMaxLiteral || text.find('\0') != std::string_view::npos) {
        return std::nullopt;
    }
    const std::string literal(text);
    IpAddress address;
    address.v6 = literal.find(':') != std::string::npos;
    if (inet_pton(address.v6 ? AF_INET6 : AF_INET, literal.c_str(), address.bytes.data()) != 1) {
        return std::nullopt;
    }
    return address;
}

Cidr parse_cidr(std::string_view text) {
    const auto slash = text.find('/');
    const auto address = parse_ip(text.substr(0, slash));
    if (!address) throw InvalidArgument("is not an IPv4 or IPv6 address or CIDR range");
    Cidr cidr{*address, address->bits()};
    if (slash == std::string_view::npos) return cidr;
    cidr.prefix = parse_prefix(text.substr(slash + 1), address->bits());
    IpAddress start;
    start.v6 = address->v6;
    for (std::size_t bit = 0; bit < cidr.prefix; ++bit) {
        const auto mask = static_cast<std::uint8_t>(0x80U >> (bit % 8));
        start.bytes[bit / 8] |= static_cast<std::uint8_t>(address->bytes[bit / 8] & mask);
    }
    if (start != *address) {
        throw InvalidArgument("has bits set past its prefix length: the /" +
                              std::to_string(cidr.prefix) + " range starts at " + text_of(start));
    }
    return cidr;
}

}  // namespace delayq::detail
