#include "http/listener.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "http/connections.hpp"
#include "http/io_pool.hpp"
#include "http/refusal.hpp"
#include "http/session.hpp"
#include "http/tls_context.hpp"

namespace delayq::server::http {
namespace {

namespace net = boost::asio;
using Tcp = net::ip::tcp;

// After a failed accept (out of file descriptors, mostly), so that the loop does not spin.
constexpr auto kAcceptRetry = std::chrono::milliseconds(50);

}  // namespace

Listener::Listener(IoPool& io, const Tcp::endpoint& endpoint, const SessionParts& parts,
                   const TlsContext* tls)
    : io_(io), acceptor_(io.first()), retry_(acceptor_.get_executor()), parts_(parts), tls_(tls) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::start() {
    net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->accept(); });
}

void Listener::stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
        boost::system::error_code ec;
        self->retry_.cancel();
        self->acceptor_.close(ec);
    });
}

Tcp::endpoint Listener::local_endpoint() const { return acceptor_.local_endpoint(); }

void Listener::accept() {
    if (!acceptor_.is_open()) return;
    acceptor_.async_accept(
        io_.next(), [self = shared_from_this()](boost::system::error_code ec, Tcp::socket socket) {
            self->on_accept(ec, std::move(socket));
        });
}

void Listener::on_accept(boost::system::error_code ec, Tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
        spdlog::warn("http: accept failed: {}; retrying", ec.message());
        retry_.expires_after(kAcceptRetry);
        retry_.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
            if (!wait_ec) self->accept();
        });
        return;
    }
    socket.set_option(Tcp::no_delay(true), ec);
    if (tls_ != nullptr) {
        // Closed at once: a TLS client would not understand a plain 503. The connection slot
        // is taken once the handshake is done; with the cap full now, the handshake would most
        // likely be wasted.
        if (parts_.connections.refuse_handshake() || parts_.connections.refuse_connection()) {
            socket.close(ec);
        } else {
            std::make_shared<TlsSession>(TlsStream(std::move(socket), tls_->current()), parts_)
                ->start();
        }
    } else if (parts_.connections.refuse_connection()) {
        refuse_connection(std::move(socket), parts_.limits);
    } else {
        std::make_shared<PlainSession>(PlainStream(std::move(socket)), parts_)->start();
    }
    accept();
}

}  // namespace delayq::server::http
