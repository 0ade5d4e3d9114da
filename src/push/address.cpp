// The push address policy: where a pusher may connect (delayq/push.hpp, PushNetwork). A target's
// URL is its owner's to set, so without a policy a pusher would be a way into the networks it
// sits in (server-side request forgery); the policy is checked on the addresses a connection is
// about to use, after name resolution, so that no DNS answer gets around it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "delayq/error.hpp"
#include "delayq/push.hpp"
#include "push/cidr.hpp"

namespace delayq {
namespace {

using detail::Cidr;
using detail::IpAddress;

struct Rule {
    Cidr range;
    std::string_view label;  // what the range is, after "<address> is "
};

struct RuleText {
    std::string_view cidr;
    std::string_view label;
};

// Refused whatever the deployment. Metadata services first, so that a refusal names them rather
// than the range they sit in. Sources, checked for this list:
// - 169.254.169.254 serves AWS, Azure, Google Cloud and Oracle Cloud instance metadata;
//   fd00:ec2::254 is AWS's IPv6 one ("Retrieve instance metadata", AWS EC2 user guide).
// - fd00:ec2::23 and 169.254.170.23: the EKS Pod Identity Agent, which hands out credentials
//   ("Set up the Amazon EKS Pod Identity Agent", Amazon EKS user guide).
// - 100.100.100.200: Alibaba Cloud ECS metadata (cloud-init, "AliYun" datasource).
// - fd00:a9fe:a9fe::1: Akamai (Linode) metadata over IPv6 (cloud-init, "Akamai" datasource).
// - fd20:ce::254: Google Cloud's metadata over IPv6, as several SSRF guards list it; not found in
//   Google's own documentation when this was written, and refused anyway: nothing else lives
//   there.
// - OpenStack's IPv6 metadata, fe80::a9fe:a9fe (Neutron release notes), is link-local.
// 0.0.0.0 and :: are refused because Linux connects a socket aimed at them to the host itself,
// as loopback; multicast and broadcast because no HTTP server answers a TCP connection there,
// and a clear refusal beats the connect error.
constexpr RuleText kAlwaysRefused[] = {
    {"169.254.169.254", "link-local (cloud metadata)"},
    {"169.254.170.23", "link-local (cloud credentials: AWS EKS Pod Identity)"},
    {"169.254.0.0/16", "link-local"},
    {"100.100.100.200", "a cloud metadata address (Alibaba Cloud)"},
    {"fd00:ec2::254", "a cloud metadata address (AWS)"},
    {"fd00:ec2::23", "a cloud credentials address (AWS EKS Pod Identity)"},
    {"fd00:a9fe:a9fe::1", "a cloud metadata address (Akamai)"},
    {"fd20:ce::254", "a cloud metadata address (Google Cloud)"},
    {"fe80::/10", "link-local"},
    {"0.0.0.0/8", "unspecified (0.0.0.0/8)"},
    {"::", "unspecified (::)"},
    {"224.0.0.0/4", "multicast"},
    {"255.255.255.255", "the broadcast address"},
    {"ff00::/8", "multicast"},
};

// Refused with deny_private: the networks of the pusher's own site, which a self-hosted
// deployment may well push to.
constexpr RuleText kPrivate[] = {
    {"127.0.0.0/8", "loopback"},
    {"::1", "loopback"},
    {"10.0.0.0/8", "private (RFC 1918)"},
    {"172.16.0.0/12", "private (RFC 1918)"},
    {"192.168.0.0/16", "private (RFC 1918)"},
    {"100.64.0.0/10", "shared address space (100.64.0.0/10, carrier-grade NAT)"},
    {"fc00::/7", "unique local (fc00::/7)"},
};

template <std::size_t N>
std::vector<Rule> rules_of(const RuleText (&texts)[N]) {
    std::vector<Rule> rules;
    rules.reserve(N);
    for (const auto& text : texts) rules.push_back({detail::parse_cidr(text.cidr), text.label});
    return rules;
}

const std::vector<Rule>& always_refused() {
    static const std::vector<Rule> rules = rules_of(kAlwaysRefused);
    return rules;
}

const std::vector<Rule>& private_ranges() {
    static const std::vector<Rule> rules = rules_of(kPrivate);
    return rules;
}

const Rule* first_match(const std::vector<Rule>& rules, const IpAddress& address) {
    const auto it = std::find_if(rules.begin(), rules.end(),
                                 [&](const Rule& rule) { return rule.range.contains(address); });
    return it == rules.end() ? nullptr : &*it;
}

// The address or entry as a message can quote it: it is the caller's text, not a secret, but it
// may be any bytes.
std::string shown(std::string_view text) {
    constexpr std::size_t kMaxShown = 64;
    std::string out;
    for (const char c : text.substr(0, kMaxShown)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\') {
            out.push_back(c);
        } else {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        }
    }
    if (text.size() > kMaxShown) out += "...";
    return out;
}

bool zone_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

// An IPv6 literal may carry a zone ("fe80::1%eth0", as getnameinfo writes a link-local
// address). The zone only picks the interface, and every address it is needed for is refused
// anyway unless allowed, so it is dropped and the address judged; an IPv4 literal has none.
std::optional<IpAddress> parse_address(std::string_view text) {
    const auto percent = text.find('%');
    if (percent != std::string_view::npos) {
        const auto zone = text.substr(percent + 1);
        if (zone.empty() || !std::all_of(zone.begin(), zone.end(), zone_char)) {
            return std::nullopt;
        }
        text = text.substr(0, percent);
        if (text.find(':') == std::string_view::npos) return std::nullopt;
    }
    return detail::parse_ip(text);
}

std::vector<Cidr> allowed_ranges(const PushNetwork& network) {
    std::vector<Cidr> ranges;
    ranges.reserve(network.allow.size());
    for (std::size_t i = 0; i < network.allow.size(); ++i) {
        try {
            ranges.push_back(detail::parse_cidr(network.allow[i]));
        } catch (const InvalidArgument& e) {
            throw InvalidArgument("push network allow entry " + std::to_string(i + 1) + " (\"" +
                                  shown(network.allow[i]) + "\") " + e.what());
        }
    }
    return ranges;
}

}  // namespace

void validate_push_network(const PushNetwork& network) { allowed_ranges(network); }

std::optional<std::string> push_address_refusal(std::string_view address,
                                                const PushNetwork& network) {
    const auto parsed = parse_address(address);
    if (!parsed) {
        throw InvalidArgument("push address \"" + shown(address) +
                              "\" is not an IPv4 or IPv6 address");
    }
    // An IPv6 address that reaches an IPv4 one is that address: judged by the IPv4 rules, and
    // allowed by an entry for either form.
    const auto v4 = detail::embedded_ipv4(*parsed);
    const auto allows = [&](const Cidr& range) {
        return range.contains(*parsed) || (v4 && range.contains(*v4));
    };
    const auto allowed = allowed_ranges(network);
    if (std::any_of(allowed.begin(), allowed.end(), allows)) return std::nullopt;

    const IpAddress& judged = v4 ? *v4 : *parsed;
    const Rule* rule = first_match(always_refused(), judged);
    if (rule == nullptr && network.deny_private) rule = first_match(private_ranges(), judged);
    if (rule == nullptr) return std::nullopt;
    std::string reason = shown(address);
    if (v4) {
        char text[16];
        std::snprintf(text, sizeof text, "%u.%u.%u.%u", v4->bytes[0], v4->bytes[1], v4->bytes[2],
                      v4->bytes[3]);
        reason += " stands for ";
        reason += text;
        reason += ", which";
    }
    reason += " is ";
    reason += rule->label;
    return reason;
}

}  // namespace delayq
