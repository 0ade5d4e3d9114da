#pragma once

#include <chrono>
#include <cstddef>

// What one client may take of the server, so that a slow, silent or greedy client cannot hold
// resources forever (docs/http.md, Limits).
namespace delayq::server::http {

struct HttpLimits {
    std::size_t io_threads = 0;  // 0: the number of cores
    std::size_t max_connections = 10'000;
    // TLS connections in their handshake, which hold no connection slot until it is done. A
    // handshake takes a round trip or two, so 1024 at once is more than 2 cores can compute
    // (a few thousand a second each), while silent clients hold at most 1024 sockets.
    std::size_t max_handshakes = 1024;
    std::size_t max_header_bytes = 16 * 1024;
    // A batch of kMaxBatch messages of a few KiB each fits; a bigger body is a 413 (each route has
    // a limit of its own, this one or smaller).
    std::size_t max_body_bytes = 16 * 1024 * 1024;
    // Of the bodies of all requests, from reading them to answering them: a request whose body
    // does not fit waits (within read_timeout) for others to be answered, then is 503.
    std::size_t max_body_bytes_in_flight = std::size_t{64} * 1024 * 1024;
    // From the first byte of a request to its last, and for writing an answer.
    std::chrono::milliseconds read_timeout = std::chrono::seconds(30);
    std::chrono::milliseconds write_timeout = std::chrono::seconds(30);
    // How long a TLS client may take over its handshake (holding a slot of max_handshakes).
    std::chrono::milliseconds handshake_timeout = std::chrono::seconds(10);
    // How long a kept-alive connection may wait for its next request.
    std::chrono::milliseconds idle_timeout = std::chrono::seconds(60);
    // How long a graceful stop waits for in-flight requests before closing what is left.
    std::chrono::milliseconds drain_timeout = std::chrono::seconds(30);
};

// Raises the soft limit on open files so that `connections` sockets fit beside the process's
// other files (up to the hard limit). Returns the number of connections that fit after it.
std::size_t raise_open_file_limit(std::size_t connections);

}  // namespace delayq::server::http
