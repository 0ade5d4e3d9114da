#pragma once

#include "delayq/types.hpp"

namespace delayq::detail {

// Waits up to `wait` until the socket is ready for `events` (POLLIN, POLLOUT) or has an error
// or hang-up to report: true then, false when the time passed. Throws TransportError when poll
// itself fails.
bool wait_for_socket(int fd, short events, Duration wait);

}  // namespace delayq::detail
