#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "redis/connection.hpp"
#include "redis/node_engine.hpp"

namespace delayq::detail {

// Idle connections for short operations, shared by threads, to one node, and what that node runs
// the operations with (NodeEngine). A connection goes back to the pool only when it is healthy;
// one the server has closed is dropped on the way out.
class ConnectionPool {
  public:
    // Opens a connection to the node (and authenticates, selects, checks the server).
    using Connect = std::function<Connection(const Endpoint&)>;

    ConnectionPool(Endpoint endpoint, Connect connect, std::size_t max_idle, ScriptEngine engine,
                   const FunctionLibrary& library);

    class Lease {
      public:
        Lease(ConnectionPool& pool, Connection conn) : pool_(&pool), conn_(std::move(conn)) {}
        ~Lease();
        Lease(Lease&&) = default;
        Lease& operator=(Lease&&) = delete;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        Connection& operator*() { return *conn_; }
        Connection* operator->() { return &*conn_; }

      private:
        ConnectionPool* pool_;
        std::optional<Connection> conn_;
    };

    // An idle connection, or a new one (which may throw ConnectionError).
    Lease acquire();
    // A new connection of the caller's own (a consumer's), to the same node.
    Connection connect();
    NodeEngine& engine() { return engine_; }
    const Endpoint& endpoint() const { return endpoint_; }
    // endpoint().describe(), made once: what Connection::where() says of its connections.
    const std::string& address() const { return address_; }

  private:
    void give_back(Connection conn);

    const Endpoint endpoint_;
    const std::string address_;
    Connect connect_;
    std::size_t max_idle_;
    std::mutex mutex_;
    std::vector<Connection> idle_;
    NodeEngine engine_;
};

}  // namespace delayq::detail
