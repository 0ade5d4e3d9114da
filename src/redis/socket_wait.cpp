#include "redis/socket_wait.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "redis/transport.hpp"

namespace delayq::detail {

bool wait_for_socket(int fd, short events, Duration wait) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + wait;
    while (true) {
        const auto left = std::chrono::ceil<Duration>(deadline - Clock::now());
        pollfd pfd{fd, events, 0};
        const int ready =
            ::poll(&pfd, 1, static_cast<int>(std::max<Duration::rep>(left.count(), 0)));
        if (ready > 0) return true;
        if (ready == 0) {
            if (Clock::now() >= deadline) return false;
            continue;  // woke a little early
        }
        if (errno != EINTR)
            throw TransportError(std::string("poll: ") + std::strerror(errno), false);
    }
}

}  // namespace delayq::detail
