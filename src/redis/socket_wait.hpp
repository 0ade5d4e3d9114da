#pragma once

#include "delayq/types.hpp"

namespace delayq::detail {

// Waits up to `wait` until the socket is ready for `events` (POLLIN, POLLOUT) or has an error
// or hang-up to report: true then, false when the time passed. Throws TransportError when poll
// itself fails.
bool wait_for_socket(int fd, short events, Duration wait);

enum class Readable { kNone, kSocket, kWake };

// Waits up to `wait` until `fd` has something to read (or an error or hang-up to report) or
// `wake_fd` is readable: a loop that sleeps on a socket can so be woken for other work. The
// socket wins when both are ready. Throws TransportError when poll itself fails.
Readable wait_for_either(int fd, int wake_fd, Duration wait);

}  // namespace delayq::detail
