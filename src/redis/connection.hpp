#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "delayq/types.hpp"
#include "redis/reply.hpp"
#include "redis/url.hpp"

struct redisContext;  // hiredis: its header stays inside connection.cpp

namespace delayq::detail {

struct Timeouts {
    Duration connect{2000};
    Duration command{2000};
};

// One synchronous connection to Redis: RAII over a hiredis context. Not thread-safe. After an
// I/O error or a timeout the connection is broken (the reply stream can no longer be trusted)
// and must be discarded. The only file that talks to hiredis's network API.
class Connection {
  public:
    // Connects, authenticates and selects the database. Throws ConnectionError, TimeoutError or
    // ServerError (bad password, bad db).
    Connection(const Endpoint& endpoint, Timeouts timeouts);
    ~Connection() = default;
    Connection(Connection&& other) noexcept = default;
    Connection& operator=(Connection&& other) noexcept = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Sends one command and reads its reply. Error replies are returned, not thrown; I/O failures
    // throw ConnectionError or TimeoutError and break the connection.
    Reply command(std::span<const std::string_view> argv);
    Reply command(std::initializer_list<std::string_view> argv);

    // Pipelining: queue commands, then read their replies in order. read() sends what is
    // queued first; flush() sends it without waiting for a reply.
    void append(std::span<const std::string_view> argv);
    void flush();
    Reply read();

    // Waits up to `timeout` for a pushed reply (pub/sub); nullopt when none came.
    std::optional<Reply> read_pushed(Duration timeout);

    // True when the server closed the connection or an error broke it: cheap (no round trip),
    // used before reusing an idle connection.
    bool broken();

  private:
    struct ContextDeleter {
        void operator()(redisContext* ctx) const;
    };

    void handshake(const Endpoint& endpoint);
    [[noreturn]] void fail(std::string_view during);
    // Null once moved from: broken() then says so and every call throws.
    std::unique_ptr<redisContext, ContextDeleter> ctx_;
    bool broken_ = false;
    std::string where_;
};

}  // namespace delayq::detail
