#include "http/server.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <delayq/error.hpp>
#include <thread>

#include "http/access_log.hpp"
#include "http/listener.hpp"

namespace delayq::server::http {
namespace {

namespace net = boost::asio;
using Tcp = net::ip::tcp;

Tcp::endpoint resolve(net::io_context& io, const ListenAddress& listen) {
    boost::system::error_code ec;
    Tcp::resolver resolver(io);
    const auto results =
        resolver.resolve(listen.host, std::to_string(listen.port), Tcp::resolver::passive, ec);
    if (ec || results.empty()) {
        throw InvalidArgument("--listen: cannot resolve \"" + listen.host + "\": " + ec.message());
    }
    return results.begin()->endpoint();
}

}  // namespace

HttpServer::HttpServer(ServerConfig config, Router router)
    : config_(std::move(config)),
      dispatcher_(config_.rules, std::move(router)),
      connections_(config_.limits.max_connections, config_.limits.max_handshakes),
      bodies_(config_.limits.max_body_bytes_in_flight),
      parts_{config_.limits, dispatcher_, connections_, bodies_},
      tls_(config_.tls ? std::make_unique<TlsContext>(*config_.tls) : nullptr),
      io_(std::make_unique<IoPool>(config_.limits.io_threads != 0
                                       ? config_.limits.io_threads
                                       : std::max(1U, std::thread::hardware_concurrency()))) {
    const Tcp::endpoint endpoint = resolve(io_->first(), config_.listen);
    listener_ = std::make_shared<Listener>(*io_, endpoint, parts_, tls_.get());
    port_ = listener_->local_endpoint().port();
    dispatcher_.set_port(port_);
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::reload_tls() {
    if (tls_) tls_->reload();
}

void HttpServer::start() {
    listener_->start();
    io_->start();
    started_ = true;
}

void HttpServer::begin_stop() {
    if (stopping_.exchange(true)) return;
    listener_->stop();
    connections_.stop_all();
}

void HttpServer::stop() {
    if (stopped_.exchange(true)) return;
    begin_stop();
    if (started_ &&
        !connections_.wait_empty(std::chrono::steady_clock::now() + config_.limits.drain_timeout)) {
        spdlog::warn("http: {} connections still busy after the drain timeout; closing them",
                     connections_.count());
    }
    io_->stop();
    flush_access_log();
}

}  // namespace delayq::server::http
