// Redis URLs naming one server or a list of a cluster's seeds (src/redis/url.hpp), and
// masked_url on them. Pure parsing: no Redis.
#include "delayq/url.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "delayq/error.hpp"
#include "redis/url.hpp"

namespace delayq::detail {
namespace {

struct Address {
    std::string host;
    int port;
    bool operator==(const Address&) const = default;
};

std::vector<Address> addresses(const std::vector<Endpoint>& seeds) {
    std::vector<Address> out;
    for (const auto& s : seeds) out.push_back({s.host, s.port});
    return out;
}

// The InvalidArgument's text for `url`, or a failure when it is accepted.
std::string refusal(std::string_view url) {
    try {
        parse_seeds(url);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    ADD_FAILURE() << url << " was accepted";
    return "";
}

// "redis://h1:7001,h2:7002,..." with n servers.
std::string list_of(std::size_t n) {
    std::string url = "redis://";
    for (std::size_t i = 1; i <= n; ++i) {
        if (i > 1) url += ',';
        url += "h" + std::to_string(i) + ":" + std::to_string(7000 + i);
    }
    return url;
}

TEST(UrlTest, OneServerIsAListOfOne) {
    const auto seeds = parse_seeds("redis://alice:s3cret@host:6380/2");
    ASSERT_EQ(seeds.size(), 1u);
    const Endpoint one = parse_url("redis://alice:s3cret@host:6380/2");
    for (const Endpoint& ep : {seeds.front(), one}) {
        EXPECT_EQ(ep.host, "host");
        EXPECT_EQ(ep.port, 6380);
        EXPECT_EQ(ep.user, "alice");
        EXPECT_EQ(ep.password, "s3cret");
        EXPECT_EQ(ep.db, 2);
        EXPECT_FALSE(ep.tls);
    }
}

TEST(UrlTest, EverySeedSharesCredentialsDbAndTlsInTheGivenOrder) {
    const auto seeds = parse_seeds("rediss://alice:s%40cret@h2:7002,10.0.0.1,h1:7001/3");
    EXPECT_EQ(addresses(seeds),
              (std::vector<Address>{{"h2", 7002}, {"10.0.0.1", 6379}, {"h1", 7001}}));
    for (const Endpoint& ep : seeds) {
        EXPECT_EQ(ep.user, "alice");
        EXPECT_EQ(ep.password, "s@cret");
        EXPECT_EQ(ep.db, 3);
        EXPECT_TRUE(ep.tls);
        EXPECT_TRUE(ep.unix_path.empty());
    }
}

TEST(UrlTest, Ipv6HostsGoInBrackets) {
    EXPECT_EQ(addresses(parse_seeds("redis://[::1]:7001,[fe80::1],h3:7003")),
              (std::vector<Address>{{"::1", 7001}, {"fe80::1", 6379}, {"h3", 7003}}));
    const Endpoint one = parse_url("redis://:pw@[::1]:6380/1");
    EXPECT_EQ(one.host, "::1");
    EXPECT_EQ(one.port, 6380);
    EXPECT_EQ(one.password, "pw");
    EXPECT_EQ(one.db, 1);
    // Bracketed again where delayq names the server, so that the port stays apart.
    EXPECT_EQ(one.describe(), "[::1]:6380");
    EXPECT_EQ(parse_url("redis://h:1").describe(), "h:1");
}

TEST(UrlTest, AUnixUrlIsOneSocketEvenWithACommaInItsPath) {
    const auto seeds = parse_seeds("unix:///run/a,b.sock?db=3");
    ASSERT_EQ(seeds.size(), 1u);
    EXPECT_EQ(seeds.front().unix_path, "/run/a,b.sock");
    EXPECT_EQ(seeds.front().db, 3);
}

TEST(UrlTest, TheNumberOfSeedsIsBounded) {
    EXPECT_EQ(parse_seeds(list_of(kMaxSeeds)).size(), kMaxSeeds);
    const std::string why = refusal(list_of(kMaxSeeds + 1));
    EXPECT_NE(why.find("names " + std::to_string(kMaxSeeds + 1) +
                       " servers, more than the limit "
                       "of " +
                       std::to_string(kMaxSeeds)),
              std::string::npos)
        << why;
}

TEST(UrlTest, EachBadInputIsRefusedSayingWhatAndWhere) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"redis://h1:1,,h2:2", "server 2 of 3: empty"},
        {"redis://h1:1,", "server 2 of 2: empty"},
        {"redis://,h1:1", "server 1 of 2: empty"},
        {"redis://h1:1,h2:x", "server 2 of 2: port must be a number from 1 to 65535"},
        {"redis://h1:1,h2:0/1", "server 2 of 2: port must be"},
        {"redis://h1:65536,h2:1", "server 1 of 2: port must be"},
        {"redis://h1:1,h2:", "server 2 of 2: port must be"},
        {"redis://h1:1,:2", "server 2 of 2: missing host"},
        {"redis://[::1:6379", "unclosed [ in host"},
        {"redis://h1:1,[::1", "server 2 of 2: unclosed [ in host"},
        {"redis://[::1],[::2", "server 2 of 2: unclosed [ in host"},
        {"redis://[::1]x", "junk after ]"},
        {"redis://[]:6379", "missing host"},
        {"redis://::1", "an IPv6 address goes in brackets"},
        {"redis://h1:1,::1:2", "server 2 of 2: an IPv6 address goes in brackets"},
        {"unix:///a.sock,/b.sock", "a unix:// URL names one socket"},
        {"redis://", "missing host"},
        {"redis://h1:1,h2:2/x", "db must be"},
        {"http://h1:1,h2:2", "unknown scheme"},
    };
    for (const auto& [url, expected] : cases) {
        const std::string why = refusal(url);
        EXPECT_NE(why.find(expected), std::string::npos) << url << ": " << why;
        // The same input with a password: no refusal shows it.
        if (url.starts_with("redis://")) {
            const std::string with_password = "redis://alice:s3cret@" + url.substr(8);
            EXPECT_EQ(refusal(with_password).find("s3cret"), std::string::npos) << with_password;
        }
    }
}

TEST(UrlTest, ParseUrlRefusesAList) {
    try {
        parse_url("redis://alice:s3cret@h1:1,h2:2,h3:3/0");
        FAIL() << "a list was accepted";
    } catch (const InvalidArgument& e) {
        const std::string why = e.what();
        EXPECT_NE(why.find("names 3 servers"), std::string::npos) << why;
        EXPECT_EQ(why.find("s3cret"), std::string::npos) << why;
    }
}

TEST(UrlTest, MaskedUrlHidesTheSharedPasswordOfAListAndOfIpv6) {
    EXPECT_EQ(masked_url("redis://alice:s3cret@h1:7001,h2:7002/2"),
              "redis://alice:***@h1:7001,h2:7002/2");
    EXPECT_EQ(masked_url("rediss://:s3cret@[::1]:7001,[::2]:7002"),
              "rediss://:***@[::1]:7001,[::2]:7002");
    EXPECT_EQ(masked_url("redis://s3cret@[fe80::1]"), "redis://***@[fe80::1]");
    EXPECT_EQ(masked_url("redis://u:p@ss,w:rd@h1:1,h2:2"), "redis://u:***@h1:1,h2:2");
    EXPECT_EQ(masked_url("redis://h1:1,[::1]:2/0"), "redis://h1:1,[::1]:2/0");
    // A password with an unencoded '/' (a URL the parser refuses) is hidden all the same.
    EXPECT_EQ(masked_url("redis://u:pa/ss@host:1"), "redis://u:***@host:1");
    EXPECT_EQ(masked_url("redis://pa/ss@host"), "redis://***@host");
    // The Sentinel client's URLs, whose path is the primary's name.
    EXPECT_EQ(masked_url("redis+sentinel://:s3cret@h1:26379,h2:26379/delayq"),
              "redis+sentinel://:***@h1:26379,h2:26379/delayq");
}

// The sentinel's InvalidArgument text for `url`, or a failure when it is accepted.
std::string sentinel_refusal(std::string_view url) {
    try {
        parse_sentinel_url(url);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    ADD_FAILURE() << url << " was accepted";
    return "";
}

TEST(UrlTest, ASentinelUrlNamesTheSentinelsTheMasterAndTheDataServersSettings) {
    const std::string url = "redis+sentinel://alice:s%40cret@h1:26380,[::1],h3/my%2Dmaster/3";
    ASSERT_TRUE(is_sentinel_url(url));
    const SentinelUrl parsed = parse_sentinel_url(url);
    EXPECT_EQ(addresses(parsed.sentinels),
              (std::vector<Address>{{"h1", 26380}, {"::1", 26379}, {"h3", 26379}}));
    EXPECT_EQ(parsed.master_name, "my-master");
    // The credentials are the data servers', never sent to a sentinel.
    EXPECT_EQ(parsed.data.user, "alice");
    EXPECT_EQ(parsed.data.password, "s@cret");
    EXPECT_EQ(parsed.data.db, 3);
    EXPECT_FALSE(parsed.data.tls);
    for (const Endpoint& s : parsed.sentinels) {
        EXPECT_TRUE(s.user.empty());
        EXPECT_TRUE(s.password.empty());
    }
    const SentinelUrl tls = parse_sentinel_url("rediss+sentinel://h1/m");
    EXPECT_TRUE(tls.data.tls);
    EXPECT_EQ(tls.data.db, 0);
    EXPECT_EQ(tls.master_name, "m");
    EXPECT_FALSE(is_sentinel_url("redis://h1:1/0"));
}

TEST(UrlTest, BadSentinelUrlsAreRefusedSayingWhy) {
    const std::pair<std::string, std::string> cases[] = {
        {"redis+sentinel://h1:26379", "names the master"},
        {"redis+sentinel://h1:26379/", "names the master"},
        {"redis+sentinel://h1:26379//2", "names the master"},
        {"redis+sentinel://h1:26379/m/x", "db must be a number"},
        {"redis+sentinel://h1:26379/m/-1", "db must be a number"},
        {"redis+sentinel://h1:0/m", "port must be a number"},
        {"redis+sentinel://h1:1,,h2:2/m", "empty (a stray comma?)"},
        {"redis+sentinel:///m", "missing host"},
    };
    for (const auto& [url, expected] : cases) {
        const std::string why = sentinel_refusal(url);
        EXPECT_NE(why.find(expected), std::string::npos) << url << ": " << why;
    }
    std::string many = list_of(kMaxSeeds + 1);
    many.replace(0, 8, "redis+sentinel://");
    EXPECT_NE(sentinel_refusal(many + "/m").find("more than the limit"), std::string::npos);
    // A sentinel URL is not a server's: the server parsers say so instead of misreading it.
    EXPECT_NE(refusal("redis+sentinel://h1/m").find("names sentinels"), std::string::npos);
}

TEST(UrlTest, MaskedUrlHidesTheDataServersPasswordOfASentinelUrl) {
    EXPECT_EQ(masked_url("redis+sentinel://alice:s3cret@h1:26379,[::1]:26380/m/2"),
              "redis+sentinel://alice:***@h1:26379,[::1]:26380/m/2");
    EXPECT_EQ(masked_url("rediss+sentinel://s3cret@h1/m"), "rediss+sentinel://***@h1/m");
    const SentinelUrl masked = parse_sentinel_url(masked_url("redis+sentinel://u:s3cret@h1/m/1"));
    EXPECT_EQ(masked.data.user, "u");
    EXPECT_EQ(masked.data.password, "***");
    EXPECT_EQ(masked.data.db, 1);
    EXPECT_EQ(masked.master_name, "m");
}

TEST(UrlTest, AMaskedUrlParsesToTheSameSeedsWithOnlyThePasswordReplaced) {
    for (const std::string url : {"redis://alice:s3cret@h1:7001,[::1]:7002,h3/4",
                                  "rediss://:a%3Ab@[::1],h2:1", "redis://s3cret@h1:1,h2:2"}) {
        const auto plain = parse_seeds(url);
        const auto masked = parse_seeds(masked_url(url));
        ASSERT_EQ(addresses(masked), addresses(plain)) << url;
        for (std::size_t i = 0; i < plain.size(); ++i) {
            EXPECT_EQ(masked[i].user, plain[i].user) << url;
            EXPECT_EQ(masked[i].password, "***") << url;
            EXPECT_EQ(masked[i].db, plain[i].db) << url;
            EXPECT_EQ(masked[i].tls, plain[i].tls) << url;
        }
    }
}

}  // namespace
}  // namespace delayq::detail
