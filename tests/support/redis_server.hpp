#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct redisReply;  // hiredis
struct redisContext;

namespace delayq::test {

// A reply of the raw command helper, flattened just enough for assertions.
struct RawReply {
    enum class Kind { kNil, kInteger, kString, kStatus, kError, kArray };
    Kind kind = Kind::kNil;
    long long integer = 0;
    std::string str;
    std::vector<RawReply> elements;

    bool is_error() const { return kind == Kind::kError; }
};

// A TLS-only server: its TCP port speaks TLS only, and the raw helper below talks to it over a
// unix socket instead.
struct RedisServerTls {
    std::string cert_file;
    std::string key_file;
    std::string ca_file;  // what client certificates must chain to
    bool require_client_cert = false;
};

struct RedisServerOptions {
    std::vector<std::string> extra_args{};
    std::optional<RedisServerTls> tls{};
    bool unix_socket = false;
    std::string password{};   // requirepass; the raw helper authenticates with it
    bool appendonly = false;  // so that data survives restart()
    // NAME=value entries for the server's environment, each replacing the test's own value of
    // NAME (e.g. an LD_PRELOAD that fakes its clock: tests/model/fake_clock.hpp).
    std::vector<std::string> environment{};
    // Draw a port whose cluster bus port (port + 10000, where a --cluster-enabled server also
    // listens) is free as well, so that a node does not fail to start on a taken bus port.
    bool reserve_bus_port = false;
    // Lines of a config file written into dir() once, before the first start, and given to
    // redis-server as its file; it then keeps what the server rewrites into it across restarts.
    std::vector<std::string> config_lines{};
    // Run as a Sentinel (--sentinel), with config_lines saying what it monitors. It is always
    // given a config file: Sentinel refuses to start without one, as it saves what it learns.
    bool sentinel = false;
};

// A hiredis reply as a RawReply, for other code that talks to Redis directly (the bench's probe).
RawReply to_raw_reply(const redisReply& reply);

// A real redis-server on a free loopback port with a fresh data directory, for one test.
// The destructor kills it and removes the directory.
class RedisServer {
  public:
    explicit RedisServer(RedisServerOptions options = {});
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    // Graceful shutdown (SIGTERM), so an append-only file is flushed.
    void stop();
    // SIGKILL: a crash, with no chance to flush anything. start() brings it back.
    void kill();
    // Starts again on the same port and directory.
    void start();
    void restart();
    // SIGSTOP / SIGCONT: the server keeps its sockets but answers nothing.
    void freeze();
    void thaw();
    bool running() const { return pid_ > 0; }

    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    // redis://127.0.0.1:<port> (rediss:// for a TLS server), plus /<db> when db >= 0.
    std::string url(int db = -1) const;
    // Only with RedisServerOptions::unix_socket or tls.
    std::string unix_socket_path() const;
    const std::filesystem::path& dir() const { return dir_; }

    // One command on a fresh connection (so it works across restarts), in database db.
    // Throws std::runtime_error when the server cannot be reached.
    RawReply command(const std::vector<std::string>& args, int db = 0) const;
    // Several commands on one fresh connection, in order (each reply, errors included): for
    // those that act on the connection's next command, as ASKING does in a cluster.
    std::vector<RawReply> commands(const std::vector<std::vector<std::string>>& list) const;
    long long integer(const std::vector<std::string>& args, int db = 0) const;
    // Sorted.
    std::vector<std::string> keys(const std::string& pattern, int db = 0) const;
    long long dbsize(int db = 0) const;
    // An integer field of INFO `section`, e.g. info_integer("memory", "used_memory").
    long long info_integer(const std::string& section, const std::string& name) const;
    long long zcard(const std::string& key) const;
    long long hlen(const std::string& key) const;
    // The server's clock (TIME) in unix milliseconds, and in microseconds.
    std::int64_t time_ms() const;
    std::int64_t time_us() const;

  private:
    bool try_start();
    bool has_config_file() const { return options_.sentinel || !options_.config_lines.empty(); }
    std::filesystem::path config_file() const { return dir_ / "redis.conf"; }
    void write_config_file() const;
    // For the raw helper: TCP, or the unix socket of a TLS-only server.
    redisContext* connect_raw(std::chrono::milliseconds timeout) const;
    // The raw helper's fresh connection, authenticated; throws when the server cannot be reached.
    redisContext* connect_helper() const;
    bool answers_ping() const;

    RedisServerOptions options_;
    std::filesystem::path dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

// A loopback TCP port that nothing listens on right now.
int free_port();
// Whether a loopback socket could bind `port` right now (nothing listens on it or uses it).
bool port_is_free(int port);

// The name of one of a queue's keys, e.g. queue_key("q", "msg") == "dq:{q}:msg".
std::string queue_key(std::string_view queue, std::string_view part);

}  // namespace delayq::test
