#include "redis/connection.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "delayq/error.hpp"
#include "redis/permission.hpp"
#include "redis/socket_wait.hpp"
#include "redis/transport.hpp"

namespace delayq::detail {
namespace {

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};

// A reply hiredis handed over as void*, owned from then on.
using OwnedReply = std::unique_ptr<redisReply, ReplyDeleter>;

OwnedReply own_reply(void* raw) { return OwnedReply(static_cast<redisReply*>(raw)); }

// A sent batch can leave a large buffer behind; above this it is given back.
constexpr std::size_t kKeptBufferBytes = std::size_t{1} << 20;
// What one read takes from the transport at most.
constexpr std::size_t kReadChunkBytes = std::size_t{16} * 1024;

std::unique_ptr<Transport> open_transport(const Endpoint& endpoint, Duration timeout,
                                          const TlsContext* tls) {
    if (!endpoint.unix_path.empty()) return connect_unix(endpoint.unix_path, timeout);
    const auto start = std::chrono::steady_clock::now();
    auto socket = connect_tcp(endpoint.host, endpoint.port, timeout);
    if (!endpoint.tls) return socket;
    if (tls == nullptr) throw TransportError("a rediss:// endpoint without TLS settings", false);
    // One limit for the TCP connect and the TLS handshake together.
    const auto spent =
        std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start);
    return connect_tls(std::move(socket), *tls,
                       endpoint.tls_name.empty() ? endpoint.host : endpoint.tls_name,
                       std::max(timeout - spent, Duration{1}));
}

}  // namespace

void Connection::ReaderDeleter::operator()(redisReader* reader) const { redisReaderFree(reader); }

Connection::Connection(const Endpoint& endpoint, Timeouts timeouts, const TlsContext* tls)
    : timeouts_(timeouts),
      plain_tcp_(endpoint.unix_path.empty() && !endpoint.tls),
      where_(endpoint.describe()) {
    try {
        transport_ = open_transport(endpoint, timeouts.connect, tls);
    } catch (const TransportError& e) {
        const std::string text = "cannot connect to Redis at " + where_ + ": " + e.what();
        if (e.timed_out()) throw TimeoutError(text);
        throw ConnectionError(text);
    }
    reader_.reset(redisReaderCreate());
    if (!reader_) throw ConnectionError("cannot connect to Redis at " + where_ + ": out of memory");
    handshake(endpoint);
}

Connection::~Connection() = default;
Connection::Connection(Connection&& other) noexcept = default;
Connection& Connection::operator=(Connection&& other) noexcept = default;

void Connection::handshake(const Endpoint& endpoint) {
    if (!endpoint.password.empty()) {
        Reply r = endpoint.user.empty() ? command({"AUTH", endpoint.password})
                                        : command({"AUTH", endpoint.user, endpoint.password});
        if (r.is_error()) throw ServerError("Redis at " + where_ + " refused AUTH: " + r.str);
    }
    if (endpoint.db != 0) {
        std::string db = std::to_string(endpoint.db);
        Reply r = command({"SELECT", db});
        check_permission(r, "SELECT", "database " + db);
        if (r.is_error()) throw ServerError("Redis at " + where_ + " refused SELECT: " + r.str);
    }
}

void Connection::check_usable() const {
    if (broken_ || !transport_) {
        throw ConnectionError("Redis at " + where_ + ": connection is broken");
    }
}

void Connection::fail(std::string_view during, const std::string& why, bool timed_out) {
    broken_ = true;
    std::string text = "Redis at " + where_ + ": " + std::string(during) + " failed: " + why;
    if (timed_out) throw TimeoutError(text + " (command timeout)");
    throw ConnectionError(text);
}

void Connection::append(std::span<const std::string_view> argv) {
    check_usable();
    std::vector<const char*> ptrs;
    std::vector<std::size_t> lens;
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (auto a : argv) {
        ptrs.push_back(a.data());
        lens.push_back(a.size());
    }
    char* formatted = nullptr;
    const int len =
        redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()), ptrs.data(), lens.data());
    if (len < 0 || formatted == nullptr) fail("sending a command", "out of memory", false);
    pending_.append(formatted, static_cast<std::size_t>(len));
    redisFreeCommand(formatted);
}

void Connection::flush() {
    check_usable();
    if (pending_.empty()) return;
    try {
        transport_->write_all(pending_, timeouts_.command);
    } catch (const TransportError& e) {
        fail("sending a command", e.what(), e.timed_out());
    }
    pending_.clear();
    if (pending_.capacity() > kKeptBufferBytes) pending_.shrink_to_fit();
}

bool Connection::receive(Duration wait, std::string_view during) {
    std::array<char, kReadChunkBytes> buf{};
    std::size_t got = 0;
    try {
        got = transport_->read_some(buf, wait);
    } catch (const TransportError& e) {
        std::string why = e.what();
        // A TLS port drops a plain client at its first bytes.
        if (plain_tcp_ && !replied_) why += " before any reply (a TLS port? then use rediss://)";
        fail(during, why, e.timed_out());
    }
    if (got == 0) return false;
    if (redisReaderFeed(reader_.get(), buf.data(), got) != REDIS_OK) {
        fail(during, "out of memory", false);
    }
    return true;
}

std::optional<Reply> Connection::parsed() {
    void* raw = nullptr;
    if (redisReaderGetReply(reader_.get(), &raw) != REDIS_OK) {
        fail("parsing a reply", reader_->errstr, false);
    }
    if (raw == nullptr) return std::nullopt;
    replied_ = true;
    return convert_reply(*own_reply(raw));
}

Reply Connection::read() {
    flush();
    while (true) {
        if (auto reply = parsed()) return std::move(*reply);
        if (!receive(timeouts_.command, "reading a reply")) {
            fail("reading a reply", "no reply in time", true);
        }
    }
}

Reply Connection::command(std::span<const std::string_view> argv) {
    append(argv);
    return read();
}

Reply Connection::command(std::initializer_list<std::string_view> argv) {
    return command(std::span<const std::string_view>(argv.begin(), argv.size()));
}

std::optional<Reply> Connection::read_pushed(Duration timeout) {
    check_usable();
    if (auto reply = parsed()) return reply;
    // Bytes inside TLS or the reader count as arrived: the transport hands them out at once.
    if (!receive(timeout, "waiting for a message")) return std::nullopt;
    return parsed();  // nullopt: part of a reply so far
}

std::optional<Reply> Connection::read_pushed(Duration timeout, int wake_fd) {
    check_usable();
    if (auto reply = parsed()) return reply;
    if (!transport_->has_buffered()) {
        Readable ready = Readable::kNone;
        try {
            ready = wait_for_either(transport_->fd(), wake_fd, timeout);
        } catch (const TransportError& e) {
            fail("waiting for a message", e.what(), false);
        }
        if (ready != Readable::kSocket) return std::nullopt;
    }
    if (!receive(Duration{0}, "waiting for a message")) return std::nullopt;
    return parsed();  // nullopt: part of a reply so far
}

bool Connection::broken() {
    if (broken_ || !transport_) return true;
    // An idle connection has nothing to read: anything received (or left unparsed) means the
    // server closed it (restart, CLIENT KILL, timeout) or broke the protocol, and the next
    // command would fail.
    if (reader_->pos < reader_->len || !transport_->idle_and_open()) broken_ = true;
    return broken_;
}

}  // namespace delayq::detail
