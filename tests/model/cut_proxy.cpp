#include "model/cut_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

namespace delayq::model {
namespace {

sockaddr_in loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

void close_pair_fds(int client, int redis) {
    if (client >= 0) ::close(client);
    if (redis >= 0) ::close(redis);
}

}  // namespace

CutProxy::CutProxy(int redis_port) : redis_port_(redis_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = loopback(0);
    socklen_t len = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener_, 64) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        ::pipe2(wake_, O_CLOEXEC) != 0) {
        throw std::runtime_error("cut proxy: cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
}

CutProxy::~CutProxy() {
    const char stop = 's';
    if (::write(wake_[1], &stop, 1) != 1) std::terminate();  // the thread would never end
    thread_.join();
    for (const Pair& p : pairs_) close_pair_fds(p.client, p.redis);
    ::close(listener_);
    ::close(wake_[0]);
    ::close(wake_[1]);
}

void CutProxy::arm(Cut cut) {
    std::lock_guard lock(mutex_);
    armed_ = true;
    cut_ = cut;
    fired_ = false;
}

bool CutProxy::disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
    return fired_;
}

void CutProxy::drop_all() {
    std::unique_lock lock(mutex_);
    const std::uint64_t served = dropped_ + 1;
    const char drop = 'd';
    if (::write(wake_[1], &drop, 1) != 1) throw std::runtime_error("cut proxy: cannot wake");
    dropped_cv_.wait(lock, [&] { return dropped_ >= served; });
}

void CutProxy::run() {
    for (;;) {
        std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
        for (const Pair& p : pairs_) {
            fds.push_back({p.client, POLLIN, 0});
            fds.push_back({p.redis, POLLIN, 0});
        }
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[0].revents != 0) {
            char what = 's';
            if (::read(wake_[0], &what, 1) != 1 || what == 's') return;
            for (const Pair& p : pairs_) close_pair_fds(p.client, p.redis);
            pairs_.clear();
            {
                std::lock_guard lock(mutex_);
                ++dropped_;
            }
            dropped_cv_.notify_all();
            continue;
        }
        // The pairs polled; one accepted now is polled next time round.
        const std::size_t polled = pairs_.size();
        std::vector<Pair> kept;
        for (std::size_t i = 0; i < polled; ++i) {
            Pair& p = pairs_[i];
            bool open = true;
            if (fds[2 + 2 * i].revents != 0) open = relay(p, true);
            if (open && fds[3 + 2 * i].revents != 0) open = relay(p, false);
            if (open) {
                kept.push_back(p);
            } else {
                close_pair_fds(p.client, p.redis);
            }
        }
        pairs_ = std::move(kept);
        if (fds[1].revents != 0) accept_one();
    }
}

void CutProxy::accept_one() {
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    const int redis = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in addr = loopback(redis_port_);
    if (redis < 0 || ::connect(redis, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        close_pair_fds(client, redis);  // as a server that is down: the client sees it closed
        return;
    }
    const int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(redis, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pairs_.push_back({client, redis, false});
}

bool CutProxy::relay(Pair& pair, bool from_client) {
    std::array<char, 65536> buffer{};
    const ssize_t n =
        ::recv(from_client ? pair.client : pair.redis, buffer.data(), buffer.size(), 0);
    if (n <= 0) return n < 0 && errno == EINTR;
    if (!from_client) {
        if (pair.drop_answer) return false;
        return send_all(pair.client, buffer.data(), static_cast<std::size_t>(n));
    }
    {
        std::lock_guard lock(mutex_);
        if (armed_) {
            armed_ = false;
            fired_ = true;
            if (cut_ == Cut::kBeforeRedis) return false;
            pair.drop_answer = true;
        }
    }
    return send_all(pair.redis, buffer.data(), static_cast<std::size_t>(n));
}

}  // namespace delayq::model
