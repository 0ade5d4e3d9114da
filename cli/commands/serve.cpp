// delayq serve: the HTTP service (docs/http.md) over this Redis.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <delayq/error.hpp>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "auth/token_table.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "http/limits.hpp"
#include "http/listen_address.hpp"
#include "http/origin.hpp"
#include "push_network.hpp"
#include "service/service.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct ServeArgs {
    std::string listen = "127.0.0.1:7380";
    std::string auth_file;
    std::string tls_cert;
    std::string tls_key;
    std::size_t io_threads = 0;
    std::size_t max_connections = server::http::HttpLimits{}.max_connections;
    std::size_t max_handshakes = server::http::HttpLimits{}.max_handshakes;
    // Long-polls: the library's defaults (server/service/long_poll.hpp).
    std::size_t max_poll_queues = server::runtime::LongPollOptions{}.max_queues;
    std::size_t max_poll_queues_per_token = server::runtime::LongPollOptions{}.max_queues_per_token;
    std::size_t max_polls_per_token = server::runtime::LongPollOptions{}.max_polls_per_token;
    std::size_t max_body_bytes_in_flight =
        server::service::ServiceConfig{}.limits.max_body_bytes_in_flight;
    std::vector<std::string> allowed_origins;
    std::size_t max_work_per_token = server::service::ServiceConfig{}.worker_share;
    bool metrics_public = false;
    std::string lease_key_file;
    std::size_t history_max_queues = server::runtime::HistoryRecorderOptions{}.max_queues;
    bool no_schedulers = false;
    bool no_pushers = false;
    bool no_ui = false;
    PushNetworkArgs push_network;
};

sigset_t serve_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

// Served all the same: the operator may be midway through replacing it.
void warn_of_certificate_dates(const server::service::Service& service) {
    if (const auto warning = service.tls_warning()) {
        std::fprintf(stderr, "delayq serve: warning: %s\n", warning->c_str());
    }
}

// SIGHUP: the auth file and the TLS certificate are re-read; what does not load leaves the old
// one in force.
void reload(server::service::Service& service) {
    if (service.has_auth_file()) {
        try {
            service.reload_auth();
            std::fprintf(stderr, "delayq serve: auth file re-read\n");
        } catch (const Error& e) {
            std::fprintf(stderr, "delayq serve: auth file not re-read, the old tokens stay: %s\n",
                         e.what());
        }
    }
    if (service.tls()) {
        try {
            service.reload_tls();
            std::fprintf(stderr, "delayq serve: TLS certificate re-read\n");
            warn_of_certificate_dates(service);
        } catch (const Error& e) {
            std::fprintf(stderr,
                         "delayq serve: TLS certificate not re-read, the old one stays: %s\n",
                         e.what());
        }
    }
}

int serve(const ServeArgs& a, const Invocation& invocation) {
    server::service::ServiceConfig config;
    config.listen = server::http::parse_listen_address(a.listen);
    if (!a.auth_file.empty()) config.auth_file = a.auth_file;
    config.limits.io_threads = a.io_threads;
    if (a.max_connections == 0) throw UsageError("--max-connections must be at least 1");
    config.limits.max_connections = a.max_connections;
    if (a.max_handshakes == 0) throw UsageError("--max-tls-handshakes must be at least 1");
    config.limits.max_handshakes = a.max_handshakes;
    const std::pair<std::size_t, const char*> poll_caps[] = {
        {a.max_poll_queues, "--max-poll-queues"},
        {a.max_poll_queues_per_token, "--max-poll-queues-per-token"},
        {a.max_polls_per_token, "--max-polls-per-token"}};
    for (const auto& [value, name] : poll_caps) {
        if (value == 0) throw UsageError(std::string(name) + " must be at least 1");
    }
    config.long_polls.max_queues = a.max_poll_queues;
    config.long_polls.max_queues_per_token = a.max_poll_queues_per_token;
    config.long_polls.max_polls_per_token = a.max_polls_per_token;
    if (a.max_work_per_token == 0) throw UsageError("--max-work-per-token must be at least 1");
    config.worker_share = a.max_work_per_token;
    if (a.max_body_bytes_in_flight < config.limits.max_body_bytes) {
        throw UsageError("--max-body-bytes-in-flight must be at least " +
                         std::to_string(config.limits.max_body_bytes) +
                         " (the largest body a request may have)");
    }
    config.limits.max_body_bytes_in_flight = a.max_body_bytes_in_flight;
    for (const std::string& origin : a.allowed_origins) {
        try {
            server::http::check_allowed_origin(origin);
        } catch (const InvalidArgument& e) {
            throw UsageError(e.what());
        }
    }
    config.allowed_origins = a.allowed_origins;
    config.metrics_public = a.metrics_public;
    if (!a.lease_key_file.empty()) config.lease_key_file = a.lease_key_file;
    config.history.max_queues = a.history_max_queues;
    config.schedulers = !a.no_schedulers;
    config.pushers = !a.no_pushers;
    config.ui = !a.no_ui;
    a.push_network.apply(config.pusher);
    if (a.tls_cert.empty() != a.tls_key.empty()) {
        throw UsageError(
            "--listen-tls-cert and --listen-tls-key go together: give both or neither");
    }
    if (!a.tls_cert.empty()) config.tls = server::http::TlsFiles{a.tls_cert, a.tls_key};

    Session session(invocation);
    config.redis_url = session.url();
    config.client = session.client_options();
    session.client();  // checks the URL's syntax
    // The managed local server is started now; any other Redis may come later (GET /readyz
    // says when it answers).
    if (session.managed()) session.connect();

    // Blocked here, before the service's threads start, so that every thread inherits the mask
    // and the signals arrive only at sigwait below.
    const sigset_t signals = serve_signals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    // The access log is written in blocks; on a quiet server, at least once a second.
    spdlog::flush_every(std::chrono::seconds(1));

    const std::string host = config.listen.host;
    std::unique_ptr<server::service::Service> service;
    try {
        service = std::make_unique<server::service::Service>(std::move(config));
    } catch (const server::AuthFileError& e) {
        throw UsageError(std::string("--auth-file: ") + e.what());
    }
    service->start();
    std::fprintf(stderr, "delayq serve: listening on %s port %u (%s, %s), Redis %s\n", host.c_str(),
                 static_cast<unsigned>(service->port()), service->tls() ? "HTTPS" : "plain HTTP",
                 a.auth_file.empty() ? "no auth file: loopback only" : "tokens from the auth file",
                 masked_url(session.url()).c_str());
    warn_of_certificate_dates(*service);

    int sig = 0;
    while (true) {
        sigwait(&signals, &sig);
        if (sig == SIGHUP) {
            reload(*service);
            continue;
        }
        break;
    }
    std::fprintf(stderr, "delayq serve: stopping: answering the requests under way\n");
    // A second SIGINT or SIGTERM while the graceful stop runs ends the process at once.
    std::thread stopper([&service] { service->stop(); });
    std::atomic<bool> stopped{false};
    std::thread watcher([&signals, &stopped] {
        const timespec tick{0, 100'000'000};
        while (!stopped) {
            const int again = sigtimedwait(&signals, nullptr, &tick);
            if (again == SIGINT || again == SIGTERM) std::_Exit(128 + again);
        }
    });
    stopper.join();
    stopped = true;
    watcher.join();
    service.reset();
    std::fprintf(stderr, "delayq serve: stopped\n");
    return kExitOk;
}

}  // namespace

void add_serve(CommandSet& set) {
    auto a = std::make_shared<ServeArgs>();
    CLI::App& cmd = set.add(
        {.path = "serve",
         .summary = "Serve the HTTP API (docs/http.md) over this Redis",
         .details = R"(Without --auth-file it listens only on loopback and answers only requests to
a loopback Host; with one, every request needs a Bearer token of the file
(delayq token new). With --listen-tls-cert and --listen-tls-key it serves HTTPS.
SIGHUP re-reads the auth file and the TLS certificate; SIGTERM or SIGINT stops
gracefully (requests under way are answered first). It claims the occurrences of
every queue's recurring schedules (delayq schedule) unless --no-schedulers, and
sends the due messages of every queue with a push target (delayq push) unless
--no-pushers. It serves a web dashboard at /ui/ (/ redirects there) unless
--no-ui.

Examples:
  delayq serve
  curl -s -X POST -H 'Content-Type: application/json' -d '{"payload": "hi", "delay": "10s"}' \
    http://127.0.0.1:7380/v1/queues/orders/messages
  delayq serve --listen 0.0.0.0:7380 --auth-file /etc/delayq/tokens \
    --listen-tls-cert /etc/delayq/cert.pem --listen-tls-key /etc/delayq/key.pem)"},
        [a](const Invocation& i) { return serve(*a, i); });
    cmd.add_option("--listen", a->listen, "HOST:PORT to listen on (default 127.0.0.1:7380)")
        ->type_name("HOST:PORT");
    cmd.add_option("--auth-file", a->auth_file, "Tokens the service accepts (delayq token new)")
        ->type_name("FILE");
    cmd.add_option("--listen-tls-cert", a->tls_cert,
                   "Serve HTTPS with this PEM certificate chain (with --listen-tls-key)")
        ->type_name("FILE");
    cmd.add_option("--listen-tls-key", a->tls_key, "The PEM private key of --listen-tls-cert")
        ->type_name("FILE");
    cmd.add_option("--io-threads", a->io_threads, "I/O threads (default: the number of cores)")
        ->type_name("N");
    cmd.add_option("--max-connections", a->max_connections,
                   "Open connections at most; beyond them a 503")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_option("--max-tls-handshakes", a->max_handshakes,
                   "TLS handshakes under way at once (they hold no connection slot); beyond "
                   "them a new connection is closed")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_option("--max-poll-queues", a->max_poll_queues,
                   "Queues long-polled at once (each a wake subscription); beyond, a 503")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_option("--max-poll-queues-per-token", a->max_poll_queues_per_token,
                   "Of them, made by one token's polls; beyond, a 503")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_option("--max-polls-per-token", a->max_polls_per_token,
                   "Long-polls one token may have waiting at once; beyond, a 503")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_option("--max-body-bytes-in-flight", a->max_body_bytes_in_flight,
                   "Bytes of request bodies held at once, from reading to answering; a body "
                   "beyond waits, then a 503")
        ->type_name("BYTES")
        ->capture_default_str();
    cmd.add_option("--allowed-origin", a->allowed_origins,
                   "An origin (https://dash.example.com) whose browser pages may call the API, "
                   "beside the server's own; repeatable")
        ->type_name("ORIGIN");
    cmd.add_option("--max-work-per-token", a->max_work_per_token,
                   "Requests one token may have queued or running on the workers; beyond, a 429")
        ->type_name("N")
        ->capture_default_str();
    cmd.add_flag("--metrics-public", a->metrics_public,
                 "Serve GET /metrics without a token (default: scope read)");
    cmd.add_option("--lease-key-file", a->lease_key_file,
                   "Seal leases with this key (32+ bytes, the same file on every server); "
                   "default: the key every server on the Redis shares, dq:shared-secret")
        ->type_name("FILE");
    cmd.add_option("--history-max-queues", a->history_max_queues,
                   "Queues whose history this server samples at once, each a Redis call every 10 s "
                   "(default " +
                       std::to_string(a->history_max_queues) + "; 0: none)")
        ->type_name("N");
    cmd.add_flag("--no-schedulers", a->no_schedulers,
                 "Claim no occurrences of recurring schedules here (default: those of every "
                 "queue; another process, such as `delayq schedule run`, may claim them)");
    cmd.add_flag("--no-pushers", a->no_pushers,
                 "Push no messages to push targets here (default: those of every queue with a "
                 "target; another process, such as `delayq push run`, may push them)");
    cmd.add_flag("--no-ui", a->no_ui,
                 "Serve no dashboard at /ui/ (default: served, its data from this API with the "
                 "user's token)");
    add_push_network_options(cmd, a->push_network);
}

}  // namespace delayq::cli
