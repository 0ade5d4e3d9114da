#include "service/service.hpp"

#include <algorithm>
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

// The long-poll hub's fetches run on the worker pool; a full pool refuses them.
Post pool_post(WorkerPool& pool) {
    return [&pool](std::function<void()> task) {
        if (!pool.try_post(std::move(task))) {
            throw WorkersBusy("the server has as much work queued as it takes; try again");
        }
    };
}

// Every worker may hold a connection at once: fewer kept idle would close and reopen
// connections under load.
ClientOptions client_options(const ServiceConfig& config) {
    ClientOptions options = config.client;
    options.pool_size = std::max(options.pool_size, config.worker_threads);
    return options;
}

// Queues with a send line of their own at once; each costs a thread while it sends.
constexpr std::size_t kQueueHandles = 1024;

}  // namespace

Service::Service(ServiceConfig config)
    : config_(std::move(config)),
      auth_(make_gate(config_)),
      pool_(config_.worker_threads, config_.worker_queue),
      client_(config_.redis_url, client_options(config_)),
      queues_(client_, kQueueHandles),
      long_polls_(client_, pool_post(pool_), config_.long_polls),
      scrapes_(client_, config_.scrape_interval),
      history_recorder_(client_, history_, config_.history),
      lease_key_(config_.lease_key_file, client_),
      context_{client_,
               queues_,
               auth_,
               pool_,
               long_polls_,
               scrapes_,
               requests_,
               history_,
               history_recorder_,
               lease_key_,
               config_.metrics_public} {
    http::Router router;
    add_all_routes(router, context_);
    http::ServerConfig server_config{config_.listen, config_.limits, !auth_.enabled(), config_.tls};
    server_config.limits.max_connections =
        http::raise_open_file_limit(server_config.limits.max_connections);
    server_ = std::make_unique<http::HttpServer>(std::move(server_config), std::move(router));
}

Service::~Service() { stop(); }

void Service::start() { server_->start(); }

void Service::stop() {
    // Waiting long-polls are answered (empty) first, so that the server's drain need not wait
    // out their `wait`; their fetches under way finish on the pool, which stops last.
    long_polls_.stop();
    server_->stop();
    queues_.clear();
    history_recorder_.stop();
    pool_.stop();
}

}  // namespace delayq::server::service
