#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "delayq/types.hpp"
#include "redis/reply.hpp"
#include "redis/url.hpp"

struct redisReader;  // hiredis: its header stays inside connection.cpp

namespace delayq::detail {

struct Timeouts {
    Duration connect{2000};
    Duration command{2000};
};

class TlsContext;
class Transport;

// One synchronous connection to Redis: commands formatted and replies parsed by hiredis, bytes
// carried by a Transport (TCP, unix socket, or TLS over TCP), so that every kind shares all of
// what is here. Not thread-safe. After an I/O error or a timeout the connection is broken (the
// reply stream can no longer be trusted) and must be discarded.
class Connection {
  public:
    // Connects (with TLS for a rediss:// endpoint, which needs `tls`), authenticates and selects
    // the database. Throws ConnectionError, TimeoutError or ServerError (bad password, bad db).
    Connection(const Endpoint& endpoint, Timeouts timeouts, const TlsContext* tls = nullptr);
    ~Connection();
    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
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
    // The same, but the wait also ends (nullopt) as soon as `wake_fd` is readable: a
    // subscriber sleeps here and is woken to send new commands. The caller drains `wake_fd`.
    std::optional<Reply> read_pushed(Duration timeout, int wake_fd);

    // True when the server closed the connection or an error broke it: cheap (no round trip),
    // used before reusing an idle connection.
    bool broken();
    // host:port or the socket path: the node this connection reaches.
    const std::string& where() const { return where_; }

  private:
    struct ReaderDeleter {
        void operator()(redisReader* reader) const;
    };

    void handshake(const Endpoint& endpoint);
    void check_usable() const;
    // Feeds what the transport has (waiting up to `wait`) to the reader: false when nothing
    // came in time. Throws as fail() does.
    bool receive(Duration wait, std::string_view during);
    std::optional<Reply> parsed();
    [[noreturn]] void fail(std::string_view during, const std::string& why, bool timed_out);

    // Null once moved from: broken() then says so and every call throws.
    std::unique_ptr<Transport> transport_;
    std::unique_ptr<redisReader, ReaderDeleter> reader_;
    std::string pending_;  // formatted commands not yet sent
    Timeouts timeouts_;
    bool broken_ = false;
    bool replied_ = false;  // a reply came: the server speaks RESP on this connection
    bool plain_tcp_ = false;
    std::string where_;
};

}  // namespace delayq::detail
