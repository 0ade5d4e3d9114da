#pragma once

#include <cstdint>
#include <delayq/client.hpp>
#include <delayq/options.hpp>
#include <delayq/scheduler.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/server.hpp"
#include "push/pusher.hpp"
#include "routes/auth_gate.hpp"
#include "routes/route_context.hpp"
#include "runtime/worker_pool.hpp"

namespace delayq::server::service {

struct ServiceConfig {
    std::string redis_url;
    ClientOptions client{};
    http::ListenAddress listen{"127.0.0.1", 7380};
    http::HttpLimits limits{};
    // Without one, the service listens and answers on loopback only.
    std::optional<std::filesystem::path> auth_file{};
    // HTTPS with this certificate and key; plain HTTP without.
    std::optional<http::TlsFiles> tls{};
    // Origins whose pages a browser may let call the API (--allowed-origin), beside the
    // server's own.
    std::vector<std::string> allowed_origins{};
    // For the library's blocking calls; a request beyond threads + queue is a 429, and so is
    // one of a token that has worker_share tasks queued or running already.
    std::size_t worker_threads = 32;
    std::size_t worker_queue = 4096;
    std::size_t worker_share = 1024;
    // Long-polls: their queues' waiters (idle_check: the safety net's period).
    runtime::LongPollOptions long_polls{};
    // GET /metrics: open to all (--metrics-public), and how often its gauges may read Redis.
    bool metrics_public = false;
    Duration scrape_interval = std::chrono::seconds(5);
    // GET .../history: queues recorded at once (--history-max-queues), and how often.
    runtime::HistoryRecorderOptions history{};
    // The key leases are sealed with (--lease-key-file). Unset: the one every server on the
    // Redis shares, made once there (Client::shared_secret).
    std::optional<std::filesystem::path> lease_key_file{};
    // A Scheduler that claims the occurrences of every queue's recurring schedules (off with
    // --no-schedulers: another process, such as `delayq schedule run`, claims them). Any number
    // may run on one Redis; each occurrence is sent once.
    bool schedulers = true;
    // A Pusher that sends the due messages of every queue with a push target (off with
    // --no-pushers); its network rules and CA file (--push-deny-private, --push-allow,
    // --push-ca-file). Any number may run on one Redis; they share each queue's limits.
    bool pushers = true;
    push::PusherOptions pusher{};
    // The dashboard at /ui/ (off with --no-ui): static files only, which call the API above
    // with the user's token like any client.
    bool ui = true;
};

// `delayq serve`: the HTTP server, its routes, and what they share, stopped in the right order.
class Service {
  public:
    // Checks the configuration and binds the address. Throws InvalidArgument for a non-loopback
    // address without an auth file (saying why) or unusable TLS files, AuthFileError for an
    // unusable auth file, and boost::system::system_error when the address cannot be bound.
    explicit Service(ServiceConfig config);
    ~Service();
    Service(const Service&) = delete;
    Service& operator=(const Service&) = delete;

    void start();
    // Graceful: stops accepting, claiming schedules and pushing, answers the requests under
    // way, lets the pushes under way end, then ends the workers.
    void stop();
    // Re-reads the auth file (SIGHUP); on an error the old tokens stay and AuthFileError says why.
    void reload_auth() { auth_.reload(); }
    bool has_auth_file() const { return auth_.enabled(); }
    // Re-reads the TLS files (SIGHUP); on an error the old ones stay and InvalidArgument says why.
    void reload_tls() { server_->reload_tls(); }
    bool tls() const { return server_->tls(); }
    // The certificate in use is expired, not yet valid or expiring soon: says which and when.
    std::optional<std::string> tls_warning() const { return server_->tls_warning(); }
    const http::BodyBudget& bodies() const { return server_->bodies(); }

    std::uint16_t port() const { return server_->port(); }
    std::size_t connections() const { return server_->connections(); }
    std::size_t handshakes() const { return server_->handshakes(); }
    std::uint64_t refused_handshakes() const { return server_->refused_handshakes(); }
    // What /metrics shows of the service itself.
    ServiceFigures figures() const;
    const http::Router& router() const { return server_->router(); }
    runtime::WorkerPool& pool() { return pool_; }
    runtime::LongPollHub& long_polls() { return long_polls_; }
    // Redis reads GET /v1/overview made: at most one a second, however many pages poll it.
    std::uint64_t overview_reads() const { return overview_.reads(); }
    runtime::HistoryRecorder& history_recorder() { return history_recorder_; }

  private:
    ServiceConfig config_;
    routes::AuthGate auth_;
    runtime::WorkerPool pool_;
    Client client_;
    runtime::QueueHandles queues_;
    runtime::LongPollHub long_polls_;
    ScrapeCache scrapes_;
    runtime::HistoryRecorder history_recorder_;
    runtime::OverviewCache overview_;  // records the queues it shows: after the recorder
    RequestMetrics requests_;
    auth::LeaseKey lease_key_;
    routes::RouteContext context_;
    std::unique_ptr<Scheduler> scheduler_;  // null with schedulers off
    std::unique_ptr<push::Pusher> pusher_;  // null with pushers off
    std::unique_ptr<http::HttpServer> server_;
};

}  // namespace delayq::server::service
