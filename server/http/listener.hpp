#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

namespace delayq::server::http {

class IoPool;
class TlsContext;
struct SessionParts;

// Accepts connections (on the pool's first context) and starts a Session for each on the pool's
// next context, over TLS when it has a TlsContext; one beyond the cap gets a 503 (over TLS: is
// only closed, and so is one beyond the cap of handshakes under way).
class Listener : public std::enable_shared_from_this<Listener> {
  public:
    // Binds and listens; throws boost::system::system_error when the address cannot be had.
    Listener(IoPool& io, const boost::asio::ip::tcp::endpoint& endpoint, const SessionParts& parts,
             const TlsContext* tls);

    void start();
    // Stops accepting (from any thread); open connections are the Connections' business.
    void stop();
    boost::asio::ip::tcp::endpoint local_endpoint() const;

  private:
    void accept();
    void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

    IoPool& io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer retry_;  // after an accept failure such as EMFILE
    const SessionParts& parts_;
    const TlsContext* tls_;  // null: plain HTTP
};

}  // namespace delayq::server::http
