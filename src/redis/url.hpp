#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace delayq::detail {

// Where and how to reach Redis, parsed from a URL.
struct Endpoint {
    std::string host;  // empty for a unix socket; an IPv6 address without its brackets
    int port = 6379;
    std::string unix_path;  // set for unix:// URLs
    std::string user;
    std::string password;
    int db = 0;
    bool tls = false;  // rediss://
    // What the server's TLS certificate must name when not `host` (a cluster node announced by
    // its IP and a hostname); TlsOptions::server_name still overrides both.
    std::string tls_name;

    // host:port ([v6]:port) or the socket path, never the password.
    std::string describe() const;
};

// The most servers one URL may name. Seeds are only a way in (a cluster client asks any one of
// them for the cluster's layout), so a handful is plenty; the bound keeps a mistyped or hostile
// URL from making a client walk through thousands of addresses before it gives up.
inline constexpr std::size_t kMaxSeeds = 64;

// redis://[[user]:password@]host[:port][,host[:port]...][/db] (rediss:// for TLS), a host being
// a name, an IPv4 address or an IPv6 address in brackets ([::1]:6380); or
// unix:///path/to/socket[?db=N], always one socket (a sentinel URL is an InvalidArgument here:
// parse_sentinel_url). Every seed of a list shares the URL's user,
// password, db and TLS. User and password may be percent-encoded. Returns at least one
// endpoint, in the URL's order. Throws InvalidArgument.
std::vector<Endpoint> parse_seeds(std::string_view url);

// A redis+sentinel:// URL (rediss+sentinel:// for TLS): the sentinels to ask for the master
// named `master_name`, and what every data server shares.
struct SentinelUrl {
    std::vector<Endpoint> sentinels;  // address only: the sentinels' credentials are their own
    std::string master_name;
    // The URL's user, password, db and TLS, which are the data servers' (no address: the
    // sentinels name it).
    Endpoint data;
};

bool is_sentinel_url(std::string_view url);

// redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/MASTER_NAME[/db], the
// sentinels' port defaulting to 26379 (at most kMaxSeeds of them). Throws InvalidArgument.
SentinelUrl parse_sentinel_url(std::string_view url);

// parse_seeds for a URL that must name exactly one server: a list is an InvalidArgument.
Endpoint parse_url(std::string_view url);

}  // namespace delayq::detail
