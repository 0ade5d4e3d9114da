#include "redis/socket_wait.hpp"

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <span>
#include <string>

#include "redis/transport.hpp"

namespace delayq::detail {
namespace {

// Polls `fds` until one is ready (true) or `wait` passed (false), through EINTR and early
// wake-ups.
bool poll_until(std::span<pollfd> fds, Duration wait) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + wait;
    while (true) {
        const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
        const int ready = ::poll(fds.data(), fds.size(),
                                 static_cast<int>(std::max<Duration::rep>(left.count(), 0)));
        if (ready > 0) return true;
        if (ready == 0) {
            if (Clock::now() >= deadline) return false;
            continue;  // woke a little early
        }
        if (errno != EINTR)
            throw TransportError(std::string("poll: ") + std::strerror(errno), false);
    }
}

}  // namespace

bool wait_for_socket(int fd, short events, Duration wait) {
    std::array<pollfd, 1> fds{{{fd, events, 0}}};
    return poll_until(fds, wait);
}

Readable wait_for_either(int fd, int wake_fd, Duration wait) {
    std::array<pollfd, 2> fds{{{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}}};
    if (!poll_until(fds, wait)) return Readable::kNone;
    return fds[0].revents != 0 ? Readable::kSocket : Readable::kWake;
}

}  // namespace delayq::detail
