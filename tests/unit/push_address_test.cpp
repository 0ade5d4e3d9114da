// The push address policy: what is always refused, what deny_private adds, how IPv6 forms of
// IPv4 addresses are judged, and how allow entries exempt an address.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "delayq/error.hpp"
#include "delayq/push.hpp"

namespace delayq {
namespace {

const PushNetwork kOpen{};
const PushNetwork kPrivateDenied{.deny_private = true};

PushNetwork allowing(std::vector<std::string> allow, bool deny_private = false) {
    return PushNetwork{.deny_private = deny_private, .allow = std::move(allow)};
}

// The refusal's reason; "" when the address may be used.
std::string refusal_of(std::string_view address, const PushNetwork& network) {
    return push_address_refusal(address, network).value_or("");
}

// The message validate_push_network throws; empty when the network passes.
std::string network_error(std::vector<std::string> allow) {
    try {
        validate_push_network(allowing(std::move(allow)));
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return {};
}

TEST(PushAddress, RefusesMetadataAndLinkLocalAlways) {
    EXPECT_EQ(refusal_of("169.254.169.254", kOpen),
              "169.254.169.254 is link-local (cloud metadata)");
    EXPECT_EQ(refusal_of("169.254.0.1", kOpen), "169.254.0.1 is link-local");
    EXPECT_EQ(refusal_of("169.254.255.255", kOpen), "169.254.255.255 is link-local");
    EXPECT_EQ(refusal_of("169.254.170.23", kOpen),
              "169.254.170.23 is link-local (cloud credentials: AWS EKS Pod Identity)");
    EXPECT_EQ(refusal_of("100.100.100.200", kOpen),
              "100.100.100.200 is a cloud metadata address (Alibaba Cloud)");
    EXPECT_EQ(refusal_of("fd00:ec2::254", kOpen),
              "fd00:ec2::254 is a cloud metadata address (AWS)");
    EXPECT_EQ(refusal_of("FD00:EC2:0:0:0:0:0:254", kOpen),
              "FD00:EC2:0:0:0:0:0:254 is a cloud metadata address (AWS)");
    EXPECT_EQ(refusal_of("fd00:ec2::23", kOpen),
              "fd00:ec2::23 is a cloud credentials address (AWS EKS Pod Identity)");
    EXPECT_EQ(refusal_of("fd00:a9fe:a9fe::1", kOpen),
              "fd00:a9fe:a9fe::1 is a cloud metadata address (Akamai)");
    EXPECT_EQ(refusal_of("fd20:ce::254", kOpen),
              "fd20:ce::254 is a cloud metadata address (Google Cloud)");
    EXPECT_EQ(refusal_of("fe80::1", kOpen), "fe80::1 is link-local");
    EXPECT_EQ(refusal_of("febf:ffff::1", kOpen), "febf:ffff::1 is link-local");
    // The same metadata services are refused with deny_private too, by the same name.
    EXPECT_EQ(refusal_of("fd00:ec2::254", kPrivateDenied),
              "fd00:ec2::254 is a cloud metadata address (AWS)");
}

TEST(PushAddress, RefusesUnspecifiedMulticastAndBroadcastAlways) {
    EXPECT_EQ(refusal_of("0.0.0.0", kOpen), "0.0.0.0 is unspecified (0.0.0.0/8)");
    EXPECT_EQ(refusal_of("0.255.1.2", kOpen), "0.255.1.2 is unspecified (0.0.0.0/8)");
    EXPECT_EQ(refusal_of("::", kOpen), ":: is unspecified (::)");
    EXPECT_EQ(refusal_of("224.0.0.1", kOpen), "224.0.0.1 is multicast");
    EXPECT_EQ(refusal_of("239.255.255.250", kOpen), "239.255.255.250 is multicast");
    EXPECT_EQ(refusal_of("ff02::1", kOpen), "ff02::1 is multicast");
    EXPECT_EQ(refusal_of("255.255.255.255", kOpen), "255.255.255.255 is the broadcast address");
}

TEST(PushAddress, AllowsPublicAddressesAndTheEdgesOfRefusedRanges) {
    for (const char* address :
         {"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "169.253.255.255", "169.255.0.0", "1.0.0.0",
          "223.255.255.255", "254.255.255.255", "fec0::1", "fe7f:ffff::1", "fe00::1", "feff::1",
          "2001:db8::1", "::2"}) {
        EXPECT_EQ(refusal_of(address, kOpen), "") << address;
        EXPECT_EQ(refusal_of(address, kPrivateDenied), "") << address;
    }
    // Alibaba Cloud's metadata address sits in the carrier-grade NAT range; its neighbours are
    // refused only with deny_private.
    EXPECT_EQ(refusal_of("100.100.100.201", kOpen), "");
    EXPECT_EQ(refusal_of("100.100.100.199", kPrivateDenied),
              "100.100.100.199 is shared address space (100.64.0.0/10, carrier-grade NAT)");
}

TEST(PushAddress, PrivateNetworksAreAllowedUnlessDenied) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"127.0.0.1", "loopback"},
        {"127.255.255.254", "loopback"},
        {"::1", "loopback"},
        {"10.0.0.1", "private (RFC 1918)"},
        {"10.255.255.255", "private (RFC 1918)"},
        {"172.16.0.1", "private (RFC 1918)"},
        {"172.31.255.255", "private (RFC 1918)"},
        {"192.168.1.1", "private (RFC 1918)"},
        {"100.64.0.0", "shared address space (100.64.0.0/10, carrier-grade NAT)"},
        {"100.127.255.255", "shared address space (100.64.0.0/10, carrier-grade NAT)"},
        {"fc00::1", "unique local (fc00::/7)"},
        {"fdff:ffff::1", "unique local (fc00::/7)"},
    };
    for (const auto& [address, label] : cases) {
        EXPECT_EQ(refusal_of(address, kOpen), "") << address;
        EXPECT_EQ(refusal_of(address, kPrivateDenied), address + " is " + label);
    }
    for (const char* outside :
         {"172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0", "100.63.255.255",
          "100.128.0.0", "11.0.0.0", "126.255.255.255", "128.0.0.0", "::1:0", "fbff::1"}) {
        EXPECT_EQ(refusal_of(outside, kPrivateDenied), "") << outside;
    }
}

TEST(PushAddress, JudgesMappedAndNat64AddressesAsTheirIpv4Address) {
    EXPECT_EQ(refusal_of("::ffff:169.254.169.254", kOpen),
              "::ffff:169.254.169.254 stands for 169.254.169.254, which is link-local (cloud "
              "metadata)");
    EXPECT_EQ(refusal_of("::ffff:a9fe:a9fe", kOpen),
              "::ffff:a9fe:a9fe stands for 169.254.169.254, which is link-local (cloud metadata)");
    EXPECT_EQ(refusal_of("::ffff:127.0.0.1", kOpen), "");
    EXPECT_EQ(refusal_of("::ffff:127.0.0.1", kPrivateDenied),
              "::ffff:127.0.0.1 stands for 127.0.0.1, which is loopback");
    EXPECT_EQ(refusal_of("::ffff:0.0.0.0", kOpen),
              "::ffff:0.0.0.0 stands for 0.0.0.0, which is unspecified (0.0.0.0/8)");
    EXPECT_EQ(refusal_of("::ffff:8.8.8.8", kPrivateDenied), "");
    EXPECT_EQ(refusal_of("64:ff9b::a9fe:a9fe", kOpen),
              "64:ff9b::a9fe:a9fe stands for 169.254.169.254, which is link-local (cloud "
              "metadata)");
    EXPECT_EQ(refusal_of("64:ff9b::10.1.2.3", kPrivateDenied),
              "64:ff9b::10.1.2.3 stands for 10.1.2.3, which is private (RFC 1918)");
    EXPECT_EQ(refusal_of("64:ff9b::8.8.8.8", kPrivateDenied), "");
    // Only the /96 well-known prefix: 64:ff9b:1::/48 (RFC 8215) places the address by its
    // operator's prefix length, and is judged as IPv6.
    EXPECT_EQ(refusal_of("64:ff9b:1::a9fe:a9fe", kOpen), "");
}

TEST(PushAddress, DropsAnIpv6ZoneAndJudgesTheAddress) {
    EXPECT_EQ(refusal_of("fe80::1%eth0", kOpen), "fe80::1%eth0 is link-local");
    EXPECT_EQ(refusal_of("fe80::1%2", kOpen), "fe80::1%2 is link-local");
    EXPECT_EQ(refusal_of("2001:db8::1%eth0", kPrivateDenied), "");
    EXPECT_EQ(refusal_of("fe80::1%eth0", allowing({"fe80::/64"})), "");
}

TEST(PushAddress, AllowEntriesExemptFromEveryRefusal) {
    EXPECT_EQ(refusal_of("169.254.169.254", allowing({"169.254.169.254"})), "");
    EXPECT_EQ(refusal_of("169.254.169.253", allowing({"169.254.169.254"})),
              "169.254.169.253 is link-local");
    EXPECT_EQ(refusal_of("10.1.2.200", allowing({"10.1.2.0/24"}, true)), "");
    EXPECT_EQ(refusal_of("10.1.3.1", allowing({"10.1.2.0/24"}, true)),
              "10.1.3.1 is private (RFC 1918)");
    EXPECT_EQ(refusal_of("fd00:ec2::254", allowing({"fd00::/8"})), "");
    EXPECT_EQ(refusal_of("127.0.0.1", allowing({"8.8.8.8", "127.0.0.0/8"}, true)), "");
    EXPECT_EQ(refusal_of("::1", allowing({"::1"}, true)), "");
    EXPECT_EQ(refusal_of("::1", allowing({"127.0.0.1"}, true)), "::1 is loopback");
    // A mapped or NAT64 address is allowed by an entry for its IPv4 address or for itself.
    EXPECT_EQ(refusal_of("::ffff:10.0.0.1", allowing({"10.0.0.0/8"}, true)), "");
    EXPECT_EQ(refusal_of("64:ff9b::a9fe:a9fe", allowing({"169.254.0.0/16"})), "");
    EXPECT_EQ(refusal_of("::ffff:10.0.0.1", allowing({"::ffff:10.0.0.0/104"}, true)), "");
    // Whole families: the owner's choice, metadata included.
    EXPECT_EQ(refusal_of("169.254.169.254", allowing({"0.0.0.0/0"})), "");
    EXPECT_EQ(refusal_of("fe80::1", allowing({"0.0.0.0/0"})), "fe80::1 is link-local");
    EXPECT_EQ(refusal_of("fe80::1", allowing({"::/0"})), "");
}

TEST(PushAddress, RefusesWhatIsNotAnAddress) {
    for (const std::string& text : std::vector<std::string>{
             "", "example.com", "1.2.3", "1.2.3.4.5", "1.2.3.4/32", "01.2.3.4", "256.1.1.1",
             " 1.2.3.4", "1.2.3.4 ", "1.2.3.4%eth0", "fe80::1%", "fe80::1%eth 0", "fe80::1%eth0%1",
             "[::1]", "::1:", "fe80:::1", "1.2.3.4:80", std::string("1.2.3.4\0", 8),
             std::string(100, '1')}) {
        EXPECT_THROW(push_address_refusal(text, kOpen), InvalidArgument) << text;
    }
    try {
        push_address_refusal(std::string("10.0.0.1\0\x7f", 10));
        ADD_FAILURE() << "a NUL inside the text passed";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(),
                     "push address \"10.0.0.1\\x00\\x7f\" is not an IPv4 or IPv6 address");
    }
}

TEST(PushAddress, ChecksTheAllowEntriesItIsGiven) {
    EXPECT_THROW(push_address_refusal("8.8.8.8", allowing({"10.0.0.0/33"})), InvalidArgument);
}

TEST(PushNetworkValidation, AcceptsAddressesAndRanges) {
    EXPECT_EQ(network_error({}), "");
    EXPECT_EQ(network_error({"10.0.0.0/8", "fd00::/8", "1.2.3.4", "::1", "0.0.0.0/0", "::/0",
                             "10.1.2.3/32", "2001:db8::/128", "::ffff:10.0.0.0/104"}),
              "");
}

TEST(PushNetworkValidation, NamesTheBadEntryAndWhy) {
    EXPECT_EQ(network_error({"10.0.0.0/33"}),
              "push network allow entry 1 (\"10.0.0.0/33\") has a prefix length of 33, over the "
              "32 bits of its address");
    EXPECT_EQ(network_error({"10.0.0.0/8", "fd00::/129"}),
              "push network allow entry 2 (\"fd00::/129\") has a prefix length of 129, over the "
              "128 bits of its address");
    EXPECT_NE(network_error({"10.0.0.0/1000"}).find("prefix length of 1000"), std::string::npos);
    EXPECT_EQ(network_error({"10.1.2.3/8"}),
              "push network allow entry 1 (\"10.1.2.3/8\") has bits set past its prefix length: "
              "the /8 range starts at 10.0.0.0");
    EXPECT_EQ(network_error({"fd00::1/8"}),
              "push network allow entry 1 (\"fd00::1/8\") has bits set past its prefix length: "
              "the /8 range starts at fd00::");
    EXPECT_EQ(network_error({"example.com"}),
              "push network allow entry 1 (\"example.com\") is not an IPv4 or IPv6 address or "
              "CIDR range");
    for (const char* bad : {"10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/08",
                            "10.0.0.0/8/8", "10.0.0.0/ 8", "10.0.0.0/0x8"}) {
        EXPECT_NE(network_error({bad}).find("not a plain decimal number"), std::string::npos)
            << bad;
    }
    for (const char* bad : {"", "/8", "10.0.0/8", "fe80::1%eth0", "*"}) {
        EXPECT_NE(network_error({"::/0", "8.8.8.8", bad}).find("allow entry 3"), std::string::npos)
            << bad;
    }
}

}  // namespace
}  // namespace delayq
