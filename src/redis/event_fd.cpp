#include "redis/event_fd.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "delayq/error.hpp"

namespace delayq::detail {

EventFd::EventFd() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) throw ConnectionError(std::string("eventfd: ") + std::strerror(errno));
}

EventFd::~EventFd() { ::close(fd_); }

void EventFd::notify() noexcept {
    const std::uint64_t one = 1;
    // Fails only when the counter is full, and then it is readable anyway.
    [[maybe_unused]] const auto n = ::write(fd_, &one, sizeof one);
}

void EventFd::drain() noexcept {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto n = ::read(fd_, &count, sizeof count);
}

}  // namespace delayq::detail
