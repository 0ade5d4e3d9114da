#pragma once

#include <memory>
#include <mutex>

#include "delayq/options.hpp"
#include "queue_registry.hpp"
#include "redis/connection.hpp"
#include "redis/pool.hpp"
#include "redis/tls_context.hpp"
#include "redis/url.hpp"
#include "send_hub.hpp"

namespace delayq::detail {

// What every Queue and Consumer of one Client shares: where Redis is, the options, the pool.
class WakeHub;

class ClientCore {
  public:
    ClientCore(Endpoint endpoint, ClientOptions options);
    ~ClientCore();
    ClientCore(const ClientCore&) = delete;
    ClientCore& operator=(const ClientCore&) = delete;

    // A new dedicated connection (consumers keep their own). The first connection of a client
    // also checks the server; a failed check is repeated on the next connection.
    Connection connect();
    ConnectionPool& pool() { return pool_; }
    const ClientOptions& options() const { return options_; }
    const Endpoint& endpoint() const { return endpoint_; }
    // What every waiter of this client shares (made, and its threads started, on first use).
    WakeHub& wake_hub();
    // What every queue's asynchronous sends share (its thread started on first use).
    SendHub& send_hub() { return send_hub_; }
    // The live queues, so that handles to one queue share its send line.
    QueueRegistry& queues() { return queues_; }

  private:
    void check_server(Connection& conn);

    Endpoint endpoint_;
    ClientOptions options_;
    std::unique_ptr<TlsContext> tls_;  // for rediss:// only
    ConnectionPool pool_;
    std::mutex check_mutex_;
    bool checked_ = false;
    // After the pool: its thread uses it. Stopped after every Queue (each holds this client).
    SendHub send_hub_{pool_};
    std::mutex hub_mutex_;
    QueueRegistry queues_;
    // Last: its threads use the rest, so it stops first.
    std::unique_ptr<WakeHub> wake_hub_;
};

}  // namespace delayq::detail
