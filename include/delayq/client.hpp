#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/options.hpp"
#include "delayq/queue.hpp"

namespace delayq {

namespace detail {
class ClientCore;
}

// A handle on one Redis server. Cheap to copy; copies share a connection pool. Thread-safe.
// URLs: redis://[user:password@]host[:port][/db] or unix:///path/to/socket[?db=N].
// Connecting is lazy: the first operation connects, and the first connection checks the server
// (Redis >= 7.0; a warning, or with refuse_evicting_server an error, for an evicting policy).
class Client {
  public:
    explicit Client(std::string_view url, ClientOptions options = {});

    // A queue: names are 1..200 bytes of printable ASCII, without braces or spaces. (Message ids
    // follow the same rule but may contain spaces.)
    Queue queue(std::string_view name, QueueOptions options = {}) const;

    // Connects (if needed) and checks the server; throws what the first operation would.
    void ping() const;

    // Names of the queues that have ever been sent to (found with SCAN, sorted).
    std::vector<std::string> queues() const;

  private:
    std::shared_ptr<detail::ClientCore> core_;
};

}  // namespace delayq
