#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "http/connections.hpp"
#include "http/limits.hpp"
#include "http/refusal.hpp"

// What a session does differently over plain TCP and over TLS, and nothing else, so that the
// session is written once for both: the way Beast's advanced "flex" server parts its plain and
// TLS sessions from what they share. Each stream offers
//   stream()       what requests are read from and answers written to;
//   tcp()          the TCP stream beneath it: timeouts, cancelling, the socket;
//   enter()        registers the session with the server's Connections (0: it must not run);
//   turn_away()    ends a connection enter() refused;
//   open()         its handshake, then `done(ec)`;
//   admit()        once open: takes the connection's slot (false: it is to close);
//   close()        ends the connection gracefully; `owner` keeps the stream until it is done.
namespace delayq::server::http {

class Session;

// Plain HTTP: no handshake; the connection takes its slot at once, and one beyond the cap is
// answered 503.
class PlainStream {
  public:
    explicit PlainStream(boost::asio::ip::tcp::socket socket) : stream_(std::move(socket)) {}

    boost::beast::tcp_stream& stream() { return stream_; }
    boost::beast::tcp_stream& tcp() { return stream_; }

    std::uint64_t enter(Connections& connections, const std::shared_ptr<Session>& session) {
        return connections.add(session);
    }
    void turn_away(const HttpLimits& limits) {
        refuse_connection(stream_.release_socket(), limits);
    }
    template <class Handler>
    void open(std::chrono::milliseconds /*timeout*/, Handler&& done) {
        std::forward<Handler>(done)(boost::beast::error_code());
    }
    bool admit(Connections& /*connections*/, std::uint64_t /*id*/) { return true; }

    // Our side ends first, so that the client reads the answer to its end before the close.
    void close(std::shared_ptr<void> /*owner*/) {
        boost::beast::error_code ec;
        stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
        stream_.close();
    }

  private:
    boost::beast::tcp_stream stream_;
};

// TLS: the connection holds a handshake slot while its handshake runs, and a connection slot only
// once it is done, so that clients that connect and say nothing cannot fill the connection slots.
class TlsStream {
  public:
    // `context` is kept as long as the connection: a reload swaps the server's, not this one.
    TlsStream(boost::asio::ip::tcp::socket socket,
              std::shared_ptr<boost::asio::ssl::context> context)
        : context_(std::move(context)), stream_(std::move(socket), *context_) {}

    boost::beast::ssl_stream<boost::beast::tcp_stream>& stream() { return stream_; }
    boost::beast::tcp_stream& tcp() { return boost::beast::get_lowest_layer(stream_); }

    std::uint64_t enter(Connections& connections, const std::shared_ptr<Session>& session) {
        return connections.add_handshake(session);
    }
    // A TLS client would not understand a plain 503: it is only closed.
    void turn_away(const HttpLimits& /*limits*/) { tcp().close(); }

    // The handshake has a deadline of its own, so that a client that says nothing (or speaks
    // plain HTTP to the TLS port) holds its handshake slot not for long.
    template <class Handler>
    void open(std::chrono::milliseconds timeout, Handler&& done) {
        tcp().expires_after(timeout);
        stream_.async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(done));
    }
    bool admit(Connections& connections, std::uint64_t id) {
        secured_ = connections.admit(id);
        return secured_;
    }

    // close_notify, so that the client knows the answer was whole; bounded, since a client need
    // not answer it. A connection never admitted is only closed.
    void close(std::shared_ptr<void> owner) {
        if (!std::exchange(secured_, false)) return tcp().close();
        tcp().expires_after(kShutdownTimeout);
        stream_.async_shutdown(
            [this, owner = std::move(owner)](boost::beast::error_code) { tcp().close(); });
    }

  private:
    static constexpr auto kShutdownTimeout = std::chrono::seconds(2);

    std::shared_ptr<boost::asio::ssl::context> context_;  // before the stream, which refers to it
    boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
    bool secured_ = false;  // handshaken and admitted: a close sends close_notify
};

}  // namespace delayq::server::http
