#include "redis/pool.hpp"

namespace delayq::detail {

ConnectionPool::ConnectionPool(Factory factory, std::size_t max_idle, ScriptEngine engine,
                               const FunctionLibrary& library)
    : factory_(std::move(factory)), max_idle_(max_idle), engine_(engine, library) {}

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
    return Lease(*this, factory_());
}

void ConnectionPool::give_back(Connection conn) {
    if (conn.broken()) return;
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle_) idle_.push_back(std::move(conn));
}

}  // namespace delayq::detail
