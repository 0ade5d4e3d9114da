#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "http/body_budget.hpp"
#include "http/connections.hpp"
#include "http/dispatcher.hpp"
#include "http/io_pool.hpp"
#include "http/limits.hpp"
#include "http/listen_address.hpp"
#include "http/router.hpp"
#include "http/session.hpp"
#include "http/tls_context.hpp"

namespace delayq::server::http {

class Listener;

struct ServerConfig {
    ListenAddress listen{"127.0.0.1", 7380};
    HttpLimits limits{};
    DispatchRules rules{};
    // HTTPS with this certificate and key; plain HTTP without.
    std::optional<TlsFiles> tls{};
};

// An HTTP/1.1 server on a few I/O threads: the listener, its connections, and the dispatch of
// each request (protocol, Host and Origin checks, route, 404/405) to the router's routes.
class HttpServer {
  public:
    // Loads the TLS files, resolves and binds the address (throws boost::system::system_error,
    // or InvalidArgument for a host that does not resolve or TLS files that cannot be used);
    // serves nothing before start().
    HttpServer(ServerConfig config, Router router);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    void start();
    // The first step of a graceful stop: stops accepting, closes idle connections, and marks
    // the others to close after the answer under way (which says `Connection: close`).
    void begin_stop();
    // Graceful: begin_stop(), then lets every request under way be answered (for at most the
    // drain timeout), closes the connections, then ends the I/O threads. Idempotent.
    void stop();

    // Re-reads the TLS files for the connections that come next; on an error the old ones stay
    // and InvalidArgument says why. Nothing to do for plain HTTP.
    void reload_tls();
    bool tls() const { return tls_ != nullptr; }
    // What is wrong with the dates of the certificate in use, if anything (TlsContext).
    std::optional<std::string> tls_warning() const {
        return tls_ ? tls_->date_warning() : std::nullopt;
    }

    std::uint16_t port() const { return port_; }
    std::size_t connections() const { return connections_.count(); }
    // TLS connections in their handshake, and those closed at once for their cap.
    std::size_t handshakes() const { return connections_.handshakes(); }
    std::uint64_t refused_handshakes() const { return connections_.refused_handshakes(); }
    // Connections answered 503 (or, for TLS, closed) at once because every slot was taken.
    std::uint64_t refused_connections() const { return connections_.refused_connections(); }
    const Router& router() const { return dispatcher_.router(); }
    const BodyBudget& bodies() const { return bodies_; }

  private:
    ServerConfig config_;
    Dispatcher dispatcher_;
    Connections connections_;
    BodyBudget bodies_;
    SessionParts parts_;
    std::unique_ptr<TlsContext> tls_;
    // After what the sessions refer to, so that it (and every session it holds) goes first.
    std::unique_ptr<IoPool> io_;
    std::shared_ptr<Listener> listener_;
    bool started_ = false;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> stopped_{false};
};

}  // namespace delayq::server::http
