#pragma once

namespace delayq::detail {

class ConsumerRuntime;

// Stops the registered consumers gracefully on SIGINT or SIGTERM. The first registration
// installs the handlers (the previous ones are restored when the last consumer leaves). The
// handler only writes a byte to a pipe; a watcher thread does the stopping, outside the signal.
void stop_on_signals(ConsumerRuntime* runtime);
void forget_signals(ConsumerRuntime* runtime);

}  // namespace delayq::detail
