#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "delayq/types.hpp"

namespace delayq::detail {

class TlsContext;

// A failure of the byte stream. Connection turns it into ConnectionError or TimeoutError with
// the server's address, so that the transports need not know it.
class TransportError : public std::runtime_error {
  public:
    TransportError(const std::string& what, bool timed_out)
        : std::runtime_error(what), timed_out_(timed_out) {}
    bool timed_out() const { return timed_out_; }

  private:
    bool timed_out_;
};

// A connected byte stream to Redis (TCP, a unix socket, or TLS over either), non-blocking
// underneath: every wait is a poll bounded by the caller's time, so nothing can hang.
class Transport {
  public:
    Transport() = default;
    virtual ~Transport() = default;
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;
    Transport(Transport&&) = delete;
    Transport& operator=(Transport&&) = delete;

    // Writes all of `data`; each wait for the socket to take more lasts at most `wait`.
    virtual void write_all(std::span<const char> data, Duration wait) = 0;
    // Reads what is there, up to buf.size(), waiting up to `wait` for the first byte: 0 when
    // nothing came in time. Data already received but not yet handed out (inside TLS) comes
    // first, without waiting. Throws TransportError when the peer closed or on an error.
    virtual std::size_t read_some(std::span<char> buf, Duration wait) = 0;
    // For an idle connection: true when it still looks usable, i.e. nothing was received
    // since (an idle connection receives nothing unless the server closed it or broke the
    // protocol). Costs no round trip.
    virtual bool idle_and_open() = 0;
    virtual int fd() const = 0;
    // Received and decoded but not yet handed out (TLS keeps a record's rest): fd() then need
    // not become readable for read_some to have something.
    virtual bool has_buffered() const { return false; }
};

// Throw TransportError on failure (timed_out when `timeout` passed), naming what failed.
std::unique_ptr<Transport> connect_tcp(const std::string& host, int port, Duration timeout);
std::unique_ptr<Transport> connect_unix(const std::string& path, Duration timeout);
// A TLS client session over `socket`, verified as `tls` says against `host` (the URL's host,
// unless the context names the server). The handshake must finish within `timeout`.
std::unique_ptr<Transport> connect_tls(std::unique_ptr<Transport> socket, const TlsContext& tls,
                                       const std::string& host, Duration timeout);

}  // namespace delayq::detail
