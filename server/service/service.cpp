#include "service/service.hpp"

#include <delayq/error.hpp>

#include "http/host_check.hpp"
#include "http/limits.hpp"
#include "service/routes.hpp"

namespace delayq::server::service {
namespace {

AuthGate make_gate(const ServiceConfig& config) {
    if (!config.auth_file) {
        if (!http::is_loopback_address(config.listen.host)) {
            throw InvalidArgument(
                "without --auth-file, delayq serve listens only on a loopback address "
                "(127.0.0.1, [::1], localhost): anyone who can reach " +
                config.listen.host +
                " could send, read and delete messages. Give --auth-file FILE (made with "
                "`delayq token new`) to listen there");
        }
        return AuthGate();
    }
    return AuthGate(*config.auth_file);
}

}  // namespace

Service::Service(ServiceConfig config)
    : config_(std::move(config)),
      auth_(make_gate(config_)),
      pool_(config_.worker_threads, config_.worker_queue),
      context_{Client(config_.redis_url, config_.client), auth_, pool_} {
    http::Router router;
    add_all_routes(router, context_);
    http::ServerConfig server_config{config_.listen, config_.limits, !auth_.enabled()};
    server_config.limits.max_connections =
        http::raise_open_file_limit(server_config.limits.max_connections);
    server_ = std::make_unique<http::HttpServer>(std::move(server_config), std::move(router));
}

Service::~Service() { stop(); }

void Service::start() { server_->start(); }

void Service::stop() {
    server_->stop();
    pool_.stop();
}

}  // namespace delayq::server::service
