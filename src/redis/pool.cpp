#include "redis/pool.hpp"

namespace delayq::detail {

ConnectionPool::ConnectionPool(Endpoint endpoint, Connect connect, std::size_t max_idle,
                               ScriptEngine engine, const FunctionLibrary& library)
    : endpoint_(std::move(endpoint)),
      address_(endpoint_.describe()),
      connect_(std::move(connect)),
      max_idle_(max_idle),
      engine_(engine, library) {}

Connection ConnectionPool::connect() {
    Connection conn = connect_(endpoint_);
    // A new connection may find the node changed: one that refused functions may allow them.
    engine_.reconnected();
    return conn;
}

ConnectionPool::Lease::~Lease() {
    if (conn_ && pool_ != nullptr) pool_->give_back(std::move(*conn_));
}

ConnectionPool::Lease ConnectionPool::acquire() {
    {
        std::lock_guard lock(mutex_);
        while (!idle_.empty()) {
            Connection conn = std::move(idle_.back());
            idle_.pop_back();
            if (!conn.broken()) return Lease(*this, std::move(conn));
        }
    }
    return Lease(*this, connect());
}

void ConnectionPool::give_back(Connection conn) {
    if (conn.broken()) return;
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle_) idle_.push_back(std::move(conn));
}

}  // namespace delayq::detail
