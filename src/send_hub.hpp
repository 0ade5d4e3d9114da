#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "redis/pool.hpp"
#include "send_flusher.hpp"

namespace delayq::detail {

// The per-Client resources behind every queue's asynchronous sends: one SendFlusher (a thread
// and, while it has work, a pooled connection) serves every queue of a node, so sending to a
// thousand queues costs one thread per Redis node, not a thousand (issue 27). The thread starts
// with the Client's first send_async and stops when the Client goes, after every Queue (each holds
// the Client).
class SendHub {
  public:
    SendHub() = default;
    ~SendHub();
    SendHub(const SendHub&) = delete;
    SendHub& operator=(const SendHub&) = delete;

    // The flusher that serves the queues of `node` (one per node: a pipeline is one
    // connection), started on first use: always the same one for a node, which keeps a
    // queue's order while its slot stays there. Error when its thread cannot start. Durable
    // lines (QueueOptions::durability) have a flusher of their own per node: each of their
    // calls holds its connection through a WAIT, which plain lines should not wait behind.
    SendFlusher& flusher_for(ConnectionPool& node, bool durable);

  private:
    std::mutex mutex_;
    // From the first send_async on; a node's, by its pool (pools live as long as the client),
    // and whether it serves durable lines.
    std::map<std::pair<ConnectionPool*, bool>, std::unique_ptr<SendFlusher>> flushers_;
};

}  // namespace delayq::detail
