#pragma once

#include <string>
#include <string_view>

namespace delayq::detail {

// Where and how to reach Redis, parsed from a URL.
struct Endpoint {
    std::string host;  // empty for a unix socket
    int port = 6379;
    std::string unix_path;  // set for unix:// URLs
    std::string user;
    std::string password;
    int db = 0;
    bool tls = false;  // rediss://
    // What the server's TLS certificate must name when not `host` (a cluster node announced by
    // its IP and a hostname); TlsOptions::server_name still overrides both.
    std::string tls_name;

    // host:port or the socket path, never the password.
    std::string describe() const;
};

// redis://[[user]:password@]host[:port][/db] (rediss:// for TLS) or
// unix:///path/to/socket[?db=N]; user and password may be percent-encoded. Throws InvalidArgument.
Endpoint parse_url(std::string_view url);

}  // namespace delayq::detail
