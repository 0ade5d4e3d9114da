#include "http/server.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <delayq/error.hpp>
#include <thread>

#include "http/access_log.hpp"
#include "http/host_check.hpp"
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
      router_(std::move(router)),
      dispatch_([this](HttpRequest request, Reply reply) {
          dispatch(std::move(request), std::move(reply));
      }),
      connections_(config_.limits.max_connections),
      tls_(config_.tls ? std::make_unique<TlsContext>(*config_.tls) : nullptr),
      io_(std::make_unique<IoPool>(config_.limits.io_threads != 0
                                       ? config_.limits.io_threads
                                       : std::max(1U, std::thread::hardware_concurrency()))) {
    const Tcp::endpoint endpoint = resolve(io_->first(), config_.listen);
    listener_ = std::make_shared<Listener>(*io_, endpoint, config_.limits, dispatch_, connections_,
                                           tls_.get());
    port_ = listener_->local_endpoint().port();
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

void HttpServer::stop() {
    if (stopped_.exchange(true)) return;
    listener_->stop();
    connections_.stop_all();
    if (started_ &&
        !connections_.wait_empty(std::chrono::steady_clock::now() + config_.limits.drain_timeout)) {
        spdlog::warn("http: {} connections still busy after the drain timeout; closing them",
                     connections_.count());
    }
    io_->stop();
    flush_access_log();
}

void HttpServer::dispatch(HttpRequest request, Reply reply) const {
    if (config_.loopback_hosts_only) {
        const auto host = request.header("host");
        if (!host || !is_loopback_host(*host)) {
            return reply(problem_response(
                {403, "forbidden",
                 "without an auth file this server answers only requests to a loopback Host "
                 "(localhost, 127.0.0.1, [::1])"}));
        }
    }
    Router::Match match = router_.match(request.method, request.path);
    switch (match.kind) {
        case Router::Match::Kind::kNotFound:
            return reply(problem_response(not_found("no such resource: " + request.path)));
        case Router::Match::Kind::kBadPath:
            return reply(problem_response(bad_request("bad percent-encoding in the path")));
        case Router::Match::Kind::kMethodNotAllowed: {
            HttpResponse r = problem_response(
                {405, "method_not_allowed",
                 std::string(boost::beast::http::to_string(request.method)) +
                     " is not allowed on " + request.path + "; allowed: " + match.allow});
            r.headers.emplace_back("Allow", match.allow);
            return reply(std::move(r));
        }
        case Router::Match::Kind::kFound:
            break;
    }
    request.params = std::move(match.params);
    (*match.handler)(std::move(request), std::move(reply));
}

}  // namespace delayq::server::http
