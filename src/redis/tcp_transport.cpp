// TCP and unix-socket transports: a non-blocking socket, every wait a poll with a time limit.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "redis/socket_wait.hpp"
#include "redis/transport.hpp"

namespace delayq::detail {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int err) { return std::strerror(err); }

class SocketTransport final : public Transport {
  public:
    explicit SocketTransport(int fd) : fd_(fd) {}
    ~SocketTransport() override { ::close(fd_); }
    SocketTransport(const SocketTransport&) = delete;
    SocketTransport& operator=(const SocketTransport&) = delete;
    SocketTransport(SocketTransport&&) = delete;
    SocketTransport& operator=(SocketTransport&&) = delete;

    void write_all(std::span<const char> data, Duration wait) override {
        while (!data.empty()) {
            // MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE for the process.
            const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
            if (n > 0) {
                data = data.subspan(static_cast<std::size_t>(n));
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (!wait_for_socket(fd_, POLLOUT, wait)) {
                    throw TransportError("timed out writing", true);
                }
            } else {
                throw TransportError(errno_text(errno), false);
            }
        }
    }

    std::size_t read_some(std::span<char> buf, Duration wait) override {
        const auto deadline = Clock::now() + wait;
        while (true) {
            const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
            if (n > 0) return static_cast<std::size_t>(n);
            if (n == 0) throw TransportError("the server closed the connection", false);
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                throw TransportError(errno_text(errno), false);
            }
            const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
            if (left.count() <= 0 || !wait_for_socket(fd_, POLLIN, left)) return 0;
        }
    }

    bool idle_and_open() override {
        pollfd pfd{fd_, POLLIN, 0};
        return ::poll(&pfd, 1, 0) == 0;
    }

    int fd() const override { return fd_; }

  private:
    int fd_;
};

// Connects the non-blocking socket `fd` to `addr`, waiting until `deadline`; throws with the
// reason, after closing fd.
void connect_socket(int fd, const sockaddr* addr, socklen_t len, Clock::time_point deadline) {
    int err = 0;
    if (::connect(fd, addr, len) != 0) {
        err = errno;
        if (err == EINPROGRESS || err == EAGAIN || err == EINTR) {
            const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
            if (left.count() <= 0 || !wait_for_socket(fd, POLLOUT, left)) {
                ::close(fd);
                throw TransportError("timed out connecting", true);
            }
            socklen_t err_len = sizeof(err);
            if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0) err = errno;
        }
    }
    if (err != 0) {
        ::close(fd);
        throw TransportError(errno_text(err), false);
    }
}

void set_option(int fd, int level, int name, int value) {
    // Best effort, as hiredis did: a socket without them still works.
    (void)::setsockopt(fd, level, name, &value, sizeof(value));
}

// Requests are small and latency matters (no Nagle delay), and a peer that vanished without a
// FIN is noticed within about half a minute (the same keepalive as hiredis's).
void tune_tcp(int fd) {
    set_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
    set_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
    set_option(fd, IPPROTO_TCP, TCP_KEEPIDLE, 15);
    set_option(fd, IPPROTO_TCP, TCP_KEEPINTVL, 5);
    set_option(fd, IPPROTO_TCP, TCP_KEEPCNT, 3);
}

struct AddrInfoDeleter {
    void operator()(addrinfo* ai) const { ::freeaddrinfo(ai); }
};

}  // namespace

std::unique_ptr<Transport> connect_tcp(const std::string& host, int port, Duration timeout) {
    const auto deadline = Clock::now() + timeout;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
        throw TransportError(std::string("cannot resolve the host name: ") + ::gai_strerror(rc),
                             false);
    }
    const std::unique_ptr<addrinfo, AddrInfoDeleter> addresses(found);
    // Each address in turn (localhost may be ::1 first with Redis on 127.0.0.1 only); a timeout
    // ends the attempt, since the time is spent.
    std::string last_error = "no address";
    for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last_error = errno_text(errno);
            continue;
        }
        try {
            connect_socket(fd, ai->ai_addr, ai->ai_addrlen, deadline);
        } catch (const TransportError& e) {
            if (e.timed_out()) throw;
            last_error = e.what();
            continue;
        }
        tune_tcp(fd);
        return std::make_unique<SocketTransport>(fd);
    }
    throw TransportError(last_error, false);
}

std::unique_ptr<Transport> connect_unix(const std::string& path, Duration timeout) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof(addr.sun_path)) {
        throw TransportError("the socket path is too long", false);
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) throw TransportError(errno_text(errno), false);
    // sockaddr_un and sockaddr are layout-compatible by POSIX contract; the cast is the API.
    connect_socket(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr),
                   Clock::now() + timeout);
    return std::make_unique<SocketTransport>(fd);
}

}  // namespace delayq::detail
