#include "service/service.hpp"

#include <algorithm>
#include <delayq/error.hpp>

#include "http/host_check.hpp"
#include "http/limits.hpp"
#include "http/origin.hpp"
#include "routes/routes.hpp"

namespace delayq::server::service {
namespace {

routes::AuthGate make_gate(const ServiceConfig& config) {
    if (!config.auth_file) {
        if (!http::is_loopback_address(config.listen.host)) {
            throw InvalidArgument(
                "without --auth-file, delayq serve listens only on a loopback address "
                "(127.0.0.1, [::1], localhost): anyone who can reach " +
                config.listen.host +
                " could send, read and delete messages. Give --auth-file FILE (made with "
                "`delayq token new`) to listen there");
        }
        return routes::AuthGate();
    }
    return routes::AuthGate(*config.auth_file);
}

// The long-poll hub's fetches run on the worker pool; a full pool refuses them.
runtime::Post pool_post(runtime::WorkerPool& pool) {
    return [&pool](std::function<void()> task) {
        if (!pool.try_post(std::move(task))) {
            throw runtime::WorkersBusy("the server has as much work queued as it takes; try again");
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
// GET /v1/overview (the dashboard's first page, polled each second by every open page): one
// read of Redis a second per server, whatever the pages, of at most this many queues (each a
// stats call of about 10 commands, and a history read a period).
constexpr Duration kOverviewMaxAge = std::chrono::seconds(1);
constexpr std::size_t kOverviewMaxQueues = 1000;

// The queue handles send with QueueOptions' defaults: the payload limit of every send, and of the
// payload of each schedule's spec.
std::size_t max_payload() { return QueueOptions{}.max_payload_bytes; }

// A single send's body holds its payload escaped as a JSON string (a quote or a backslash takes
// two bytes) or in base64 (4 bytes for 3), and a few options. No route takes more than the
// server's max_body_bytes.
routes::BodyLimits body_limits(const ServiceConfig& config) {
    const std::size_t most = config.limits.max_body_bytes;
    routes::BodyLimits limits;
    limits.message = std::min(2 * max_payload() + limits.small, most);
    limits.small = std::min(limits.small, most);
    limits.lease_list = std::min(limits.lease_list, most);
    limits.batch = most;
    return limits;
}

http::ServerConfig server_config(const ServiceConfig& config, bool auth) {
    if (config.limits.max_body_bytes_in_flight < config.limits.max_body_bytes) {
        throw InvalidArgument("the bytes of bodies in flight (" +
                              std::to_string(config.limits.max_body_bytes_in_flight) +
                              ") must be at least those of one body (" +
                              std::to_string(config.limits.max_body_bytes) + ")");
    }
    for (const std::string& origin : config.allowed_origins) http::check_allowed_origin(origin);
    http::ServerConfig out{
        config.listen, config.limits, {!auth, config.allowed_origins}, config.tls};
    // TLS handshakes under way hold sockets too, beside the connections' slots.
    const std::size_t handshakes = config.tls ? out.limits.max_handshakes : 0;
    out.limits.max_connections =
        std::min(out.limits.max_connections,
                 http::raise_open_file_limit(out.limits.max_connections + handshakes));
    return out;
}

}  // namespace

Service::Service(ServiceConfig config)
    : config_(std::move(config)),
      auth_(make_gate(config_)),
      pool_(config_.worker_threads, config_.worker_queue, config_.worker_share),
      client_(config_.redis_url, client_options(config_)),
      queues_(client_, kQueueHandles),
      long_polls_(client_, pool_post(pool_), config_.long_polls),
      scrapes_(client_, config_.scrape_interval),
      history_recorder_(client_, config_.history),
      overview_(client_, history_recorder_, kOverviewMaxAge, kOverviewMaxQueues),
      lease_key_(config_.lease_key_file, client_),
      context_{client_,
               queues_,
               auth_,
               pool_,
               long_polls_,
               scrapes_,
               overview_,
               requests_,
               history_recorder_,
               lease_key_,
               config_.metrics_public,
               body_limits(config_),
               max_payload(),
               {}} {
    // Every queue with schedules, found in their registry: the routes' changes need no restart.
    if (config_.schedulers) scheduler_ = std::make_unique<Scheduler>(client_);
    // Likewise every queue with a push target, found in their index.
    if (config_.pushers) pusher_ = std::make_unique<push::Pusher>(client_, config_.pusher);
    http::Router router;
    routes::add_all_routes(router, context_);
    if (config_.ui) routes::add_ui_routes(router, context_);
    server_ = std::make_unique<http::HttpServer>(server_config(config_, auth_.enabled()),
                                                 std::move(router));
    // The server is made after the routes that read its figures.
    context_.figures = [this] { return figures(); };
}

ServiceFigures Service::figures() const {
    const runtime::LongPollStats polls = long_polls_.stats();
    const runtime::WorkerPool::Refused refused = pool_.refused();
    const http::BodyBudget& bodies = server_->bodies();
    return {.connections = server_->connections(),
            .connections_refused = server_->refused_connections(),
            .handshakes_refused = server_->refused_handshakes(),
            .body_bytes_in_flight = bodies.in_flight(),
            .bodies_waiting = bodies.waiting(),
            .bodies_timed_out = bodies.timed_out(),
            .worker_tasks_waiting = pool_.waiting(),
            .worker_tasks_running = pool_.running(),
            .worker_refused_pool_full = refused.pool_full,
            .worker_refused_token_share = refused.share_full,
            .long_polls_waiting = polls.waiting,
            .long_poll_queues = polls.queues,
            .long_poll_fetches = polls.fetches,
            .long_polls_refused = polls.refused,
            .scheduler_lag = scheduler_ ? std::optional(scheduler_->stats().lag) : std::nullopt,
            .pusher = pusher_ ? std::optional(pusher_->stats()) : std::nullopt};
}

Service::~Service() { stop(); }

// The parts before the server, so that what it serves runs when it answers its first request.
void Service::start() {
    if (scheduler_) scheduler_->start();
    if (pusher_) pusher_->start();
    server_->start();
}

void Service::stop() {
    // 1. No new connection or request: what is answered from now on says `Connection: close`.
    server_->begin_stop();
    // 2. Waiting long-polls are answered (empty), so that the server's drain need not wait out
    //    their `wait`; their fetches under way finish on the pool, which stops last. The
    //    scheduler claims nothing more: its call under way ends while the requests are answered.
    //    The pusher leases nothing more; its requests in flight end meanwhile, and are settled.
    long_polls_.stop();
    if (scheduler_) scheduler_->stop();
    if (pusher_) pusher_->stop();
    // 3. The requests under way are answered, and the connections closed.
    server_->stop();
    // 4. What the routes share goes, the pool last. The scheduler and the pusher stay, stopped,
    //    for their figures.
    if (scheduler_) scheduler_->wait();
    if (pusher_) pusher_->wait();
    queues_.clear();
    history_recorder_.stop();
    pool_.stop();
}

}  // namespace delayq::server::service
