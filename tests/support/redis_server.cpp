#include "support/redis_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "support/read_file.hpp"

extern char** environ;

namespace delayq::test {

namespace {

using namespace std::chrono_literals;

struct ContextDeleter {
    void operator()(redisContext* ctx) const { redisFree(ctx); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// The test's environment with `extra` (NAME=value entries) in place of the entries they name.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
            const std::size_t eq = x.find('=');
            return eq != std::string::npos &&
                   entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1);
        });
        if (!replaced) out.emplace_back(entry);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

timeval to_timeval(std::chrono::milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    return tv;
}

RawReply run(redisContext* ctx, const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    ReplyPtr reply(static_cast<redisReply*>(
        redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data())));
    if (!reply) throw std::runtime_error("redis command failed: " + std::string(ctx->errstr));
    return to_raw_reply(*reply);
}

}  // namespace

RawReply to_raw_reply(const redisReply& reply) {
    RawReply out;
    switch (reply.type) {
        case REDIS_REPLY_INTEGER:
            out.kind = RawReply::Kind::kInteger;
            out.integer = reply.integer;
            break;
        case REDIS_REPLY_NIL:
            out.kind = RawReply::Kind::kNil;
            break;
        case REDIS_REPLY_STATUS:
            out.kind = RawReply::Kind::kStatus;
            break;
        case REDIS_REPLY_ERROR:
            out.kind = RawReply::Kind::kError;
            break;
        case REDIS_REPLY_ARRAY:
            out.kind = RawReply::Kind::kArray;
            for (std::size_t i = 0; i < reply.elements; ++i) {
                out.elements.push_back(to_raw_reply(*reply.element[i]));
            }
            break;
        default:
            out.kind = RawReply::Kind::kString;
            break;
    }
    if (reply.str != nullptr) out.str.assign(reply.str, reply.len);
    return out;
}

namespace {

// Binds a loopback socket to `port` (0: any free one) and closes it: the port it got, or
// nothing when `port` is taken.
std::optional<int> bind_loopback(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    socklen_t len = sizeof(addr);
    // sockaddr_in and sockaddr are layout-compatible by POSIX contract; the casts are the API.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ::close(fd);
        return std::nullopt;
    }
    ::close(fd);
    return ntohs(addr.sin_port);
}

// Redis's default cluster bus port is the client port plus this.
constexpr int kBusPortOffset = 10000;

// A free port other than Redis's default; with `with_bus`, one whose bus port is free too.
// About a fifth of the kernel's ephemeral ports (those above 55535) have no bus port at all,
// hence the many draws.
int draw_port(bool with_bus) {
    for (int draw = 0; draw < 1000; ++draw) {
        const int port = free_port();
        if (port == 6379) continue;
        if (!with_bus) return port;
        if (port + kBusPortOffset <= 65535 && port_is_free(port + kBusPortOffset)) return port;
    }
    throw std::runtime_error("no free loopback port with a free cluster bus port");
}

}  // namespace

int free_port() {
    const std::optional<int> port = bind_loopback(0);
    if (!port) throw std::runtime_error("bind() to a loopback port failed");
    return *port;
}

bool port_is_free(int port) { return bind_loopback(port).has_value(); }

std::string queue_key(std::string_view queue, std::string_view part) {
    std::string key = "dq:{";
    key += queue;
    key += "}:";
    key += part;
    return key;
}

RedisServer::RedisServer(RedisServerOptions options) : options_(std::move(options)) {
    std::string templ = (std::filesystem::temp_directory_path() / "delayq-test-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    if (has_config_file()) write_config_file();
    // A port (or its bus port) can be taken between the draw and the server's bind: then draw
    // another.
    for (int attempt = 0; attempt < 10; ++attempt) {
        port_ = draw_port(options_.reserve_bus_port);
        if (try_start()) return;
    }
    const std::string log = read_file(dir_ / "redis.log") + read_file(dir_ / "stdout.log");
    std::filesystem::remove_all(dir_);
    throw std::runtime_error("redis-server did not start: " + log);
}

RedisServer::~RedisServer() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

redisContext* RedisServer::connect_raw(std::chrono::milliseconds timeout) const {
    const timeval tv = to_timeval(timeout);
    Context ctx(options_.tls ? redisConnectUnixWithTimeout(unix_socket_path().c_str(), tv)
                             : redisConnectWithTimeout("127.0.0.1", port_, tv));
    if (!ctx || ctx->err != 0) return nullptr;
    redisSetTimeout(ctx.get(), tv);
    return ctx.release();
}

void RedisServer::write_config_file() const {
    std::ofstream out(config_file());
    for (const auto& line : options_.config_lines) out << line << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + config_file().string());
}

bool RedisServer::try_start() {
    // A TLS server's only TCP port is its TLS port.
    std::vector<std::string> args = {"redis-server",
                                     options_.tls ? "--tls-port" : "--port",
                                     std::to_string(port_),
                                     "--bind",
                                     "127.0.0.1",
                                     "--save",
                                     "",
                                     "--appendonly",
                                     options_.appendonly ? "yes" : "no",
                                     "--dir",
                                     dir_.string(),
                                     "--logfile",
                                     (dir_ / "redis.log").string(),
                                     "--daemonize",
                                     "no",
                                     "--enable-debug-command",
                                     "local"};
    if (options_.unix_socket || options_.tls) {
        args.insert(args.end(), {"--unixsocket", unix_socket_path(), "--unixsocketperm", "700"});
    }
    if (const auto& tls = options_.tls) {
        args.insert(args.end(), {"--port", "0", "--tls-cert-file", tls->cert_file, "--tls-key-file",
                                 tls->key_file, "--tls-ca-cert-file", tls->ca_file,
                                 "--tls-auth-clients", tls->require_client_cert ? "yes" : "no"});
    }
    if (!options_.password.empty()) {
        args.insert(args.end(), {"--requirepass", options_.password});
    }
    args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
    // The file must come first: redis-server reads a first argument not starting with "--" as it.
    if (has_config_file()) args.insert(args.begin() + 1, config_file().string());
    if (options_.sentinel) args.emplace_back("--sentinel");

    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    std::vector<std::string> env = child_environment(options_.environment);
    std::vector<char*> envp;
    envp.reserve(env.size() + 1);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out_path = (dir_ / "stdout.log").string();
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, "redis-server", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run redis-server (is it on PATH?)");
    pid_ = pid;

    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return false;
        }
        if (answers_ping()) return true;
        std::this_thread::sleep_for(5ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return false;
}

bool RedisServer::answers_ping() const {
    Context ctx(connect_raw(200ms));
    if (!ctx) return false;
    try {
        if (!options_.password.empty()) {
            if (run(ctx.get(), {"AUTH", options_.password}).is_error()) return false;
        }
        const RawReply pong = run(ctx.get(), {"PING"});
        return pong.kind == RawReply::Kind::kStatus && pong.str == "PONG";
    } catch (const std::runtime_error&) {
        return false;
    }
}

void RedisServer::stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(5ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

void RedisServer::kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

void RedisServer::start() {
    if (pid_ > 0) return;
    // The port was released by our own server a moment ago; retry in case the kernel lags.
    for (int attempt = 0; attempt < 20; ++attempt) {
        if (try_start()) return;
        std::this_thread::sleep_for(50ms);
    }
    throw std::runtime_error("redis-server did not restart on port " + std::to_string(port_) +
                             ": " + read_file(dir_ / "redis.log"));
}

void RedisServer::restart() {
    stop();
    start();
}

void RedisServer::freeze() {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServer::thaw() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
}

std::string RedisServer::url(int db) const {
    // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) about
    // "literal" + std::string in the bench's release build.
    std::string out = options_.tls ? "rediss://127.0.0.1:" : "redis://127.0.0.1:";
    out += std::to_string(port_);
    if (db >= 0) out.append("/").append(std::to_string(db));
    return out;
}

std::string RedisServer::unix_socket_path() const { return (dir_ / "redis.sock").string(); }

redisContext* RedisServer::connect_helper() const {
    Context ctx(connect_raw(5s));
    if (!ctx) throw std::runtime_error("cannot connect to redis on port " + std::to_string(port_));
    if (!options_.password.empty()) {
        const RawReply auth = run(ctx.get(), {"AUTH", options_.password});
        if (auth.is_error()) throw std::runtime_error("AUTH failed: " + auth.str);
    }
    return ctx.release();
}

RawReply RedisServer::command(const std::vector<std::string>& args, int db) const {
    Context ctx(connect_helper());
    if (db != 0) {
        const RawReply sel = run(ctx.get(), {"SELECT", std::to_string(db)});
        if (sel.is_error()) throw std::runtime_error("SELECT failed: " + sel.str);
    }
    return run(ctx.get(), args);
}

std::vector<RawReply> RedisServer::commands(
    const std::vector<std::vector<std::string>>& list) const {
    Context ctx(connect_helper());
    std::vector<RawReply> out;
    out.reserve(list.size());
    for (const auto& args : list) out.push_back(run(ctx.get(), args));
    return out;
}

long long RedisServer::integer(const std::vector<std::string>& args, int db) const {
    const RawReply reply = command(args, db);
    if (reply.kind != RawReply::Kind::kInteger) {
        throw std::runtime_error("expected an integer reply to " + args.front() + ": " + reply.str);
    }
    return reply.integer;
}

std::vector<std::string> RedisServer::keys(const std::string& pattern, int db) const {
    const RawReply reply = command({"KEYS", pattern}, db);
    std::vector<std::string> out;
    for (const auto& e : reply.elements) out.push_back(e.str);
    std::sort(out.begin(), out.end());
    return out;
}

long long RedisServer::dbsize(int db) const { return integer({"DBSIZE"}, db); }

long long RedisServer::info_integer(const std::string& section, const std::string& name) const {
    const std::string info = command({"INFO", section}).str;
    const auto pos = info.find("\n" + name + ":");
    if (pos == std::string::npos) throw std::runtime_error("no " + name + " in INFO " + section);
    return std::stoll(info.substr(pos + name.size() + 2));
}

long long RedisServer::zcard(const std::string& key) const { return integer({"ZCARD", key}); }

long long RedisServer::hlen(const std::string& key) const { return integer({"HLEN", key}); }

std::int64_t RedisServer::time_ms() const { return time_us() / 1000; }

std::int64_t RedisServer::time_us() const {
    const RawReply reply = command({"TIME"});
    if (reply.elements.size() != 2) throw std::runtime_error("unexpected TIME reply");
    return std::stoll(reply.elements[0].str) * 1000000 + std::stoll(reply.elements[1].str);
}

}  // namespace delayq::test
