#include "redis/connection.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

timeval to_timeval(Duration d) {
    timeval tv{};
    tv.tv_sec = static_cast<decltype(tv.tv_sec)>(d.count() / 1000);
    tv.tv_usec = static_cast<decltype(tv.tv_usec)>((d.count() % 1000) * 1000);
    return tv;
}

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};

// A reply hiredis handed over as void*, owned from then on.
using OwnedReply = std::unique_ptr<redisReply, ReplyDeleter>;

OwnedReply own_reply(void* raw) { return OwnedReply(static_cast<redisReply*>(raw)); }

}  // namespace

void Connection::ContextDeleter::operator()(redisContext* ctx) const { redisFree(ctx); }

Connection::Connection(const Endpoint& endpoint, Timeouts timeouts) : where_(endpoint.describe()) {
    timeval tv = to_timeval(timeouts.connect);
    ctx_.reset(endpoint.unix_path.empty()
                   ? redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, tv)
                   : redisConnectUnixWithTimeout(endpoint.unix_path.c_str(), tv));
    if (!ctx_) throw ConnectionError("cannot connect to Redis at " + where_ + ": out of memory");
    redisContext* c = ctx_.get();
    // A throw from here on frees the context: ctx_ is a constructed member.
    if (c->err != 0) {
        std::string why = c->errstr;
        bool timed_out = c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EINPROGRESS ||
                                                    why.find("timed out") != std::string::npos);
        if (timed_out) throw TimeoutError("timed out connecting to Redis at " + where_);
        throw ConnectionError("cannot connect to Redis at " + where_ + ": " + why);
    }
    redisSetTimeout(c, to_timeval(timeouts.command));
    if (endpoint.unix_path.empty()) redisEnableKeepAlive(c);
    handshake(endpoint);
}

void Connection::handshake(const Endpoint& endpoint) {
    if (!endpoint.password.empty()) {
        Reply r = endpoint.user.empty() ? command({"AUTH", endpoint.password})
                                        : command({"AUTH", endpoint.user, endpoint.password});
        if (r.is_error()) throw ServerError("Redis at " + where_ + " refused AUTH: " + r.str);
    }
    if (endpoint.db != 0) {
        std::string db = std::to_string(endpoint.db);
        Reply r = command({"SELECT", db});
        if (r.is_error()) throw ServerError("Redis at " + where_ + " refused SELECT: " + r.str);
    }
}

void Connection::fail(std::string_view during) {
    broken_ = true;
    const redisContext* c = ctx_.get();
    std::string why = c != nullptr && c->err != 0 ? c->errstr : "connection closed";
    bool timed_out = c != nullptr && c->err == REDIS_ERR_IO &&
                     (why.find("temporarily unavailable") != std::string::npos ||
                      why.find("timed out") != std::string::npos);
    std::string text = "Redis at " + where_ + ": " + std::string(during) + " failed: " + why;
    if (timed_out) throw TimeoutError(text + " (command timeout)");
    throw ConnectionError(text);
}

void Connection::append(std::span<const std::string_view> argv) {
    if (broken_) throw ConnectionError("Redis at " + where_ + ": connection is broken");
    std::vector<const char*> ptrs;
    std::vector<std::size_t> lens;
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (auto a : argv) {
        ptrs.push_back(a.data());
        lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_.get(), static_cast<int>(argv.size()), ptrs.data(),
                               lens.data()) != REDIS_OK) {
        fail("sending a command");
    }
}

void Connection::flush() {
    if (broken_) throw ConnectionError("Redis at " + where_ + ": connection is broken");
    int done = 0;
    while (done == 0) {
        if (redisBufferWrite(ctx_.get(), &done) != REDIS_OK) fail("sending a command");
    }
}

Reply Connection::read() {
    if (broken_) throw ConnectionError("Redis at " + where_ + ": connection is broken");
    void* raw = nullptr;
    if (redisGetReply(ctx_.get(), &raw) != REDIS_OK || raw == nullptr) fail("reading a reply");
    return convert_reply(*own_reply(raw));
}

Reply Connection::command(std::span<const std::string_view> argv) {
    append(argv);
    return read();
}

Reply Connection::command(std::initializer_list<std::string_view> argv) {
    return command(std::span<const std::string_view>(argv.begin(), argv.size()));
}

std::optional<Reply> Connection::read_pushed(Duration timeout) {
    if (broken_) throw ConnectionError("Redis at " + where_ + ": connection is broken");
    redisContext* c = ctx_.get();
    void* raw = nullptr;
    if (redisReaderGetReply(c->reader, &raw) != REDIS_OK) fail("parsing a reply");
    if (raw == nullptr) {
        pollfd pfd{c->fd, POLLIN, 0};
        int ready = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
        if (ready == 0) return std::nullopt;
        if (ready < 0) {
            if (errno == EINTR) return std::nullopt;
            fail("waiting for a message");
        }
        if (redisBufferRead(c) != REDIS_OK) fail("reading a message");
        if (redisReaderGetReply(c->reader, &raw) != REDIS_OK) fail("parsing a reply");
        if (raw == nullptr) return std::nullopt;  // part of a reply so far
    }
    return convert_reply(*own_reply(raw));
}

bool Connection::broken() {
    if (broken_ || !ctx_) return true;
    // An idle connection has nothing to read: readable means the server closed it (restart,
    // CLIENT KILL, timeout) and the next command would fail.
    pollfd pfd{ctx_->fd, POLLIN, 0};
    if (::poll(&pfd, 1, 0) != 0) broken_ = true;
    return broken_;
}

}  // namespace delayq::detail
