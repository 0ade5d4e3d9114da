#pragma once

#include <memory>
#include <mutex>
#include <string_view>

#include "redis/pool.hpp"
#include "send_flusher.hpp"

namespace delayq::detail {

// The per-Client resources behind every queue's asynchronous sends: one SendFlusher (a thread
// and, while it has work, a pooled connection) serves every queue, so sending to a thousand
// queues costs one thread, not a thousand (issue 27). The thread starts with the Client's first
// send_async and stops when the Client goes, after every Queue (each holds the Client).
class SendHub {
  public:
    explicit SendHub(ConnectionPool& pool) : pool_(pool) {}
    ~SendHub();
    SendHub(const SendHub&) = delete;
    SendHub& operator=(const SendHub&) = delete;

    // The flusher that serves `queue`, started on first use: always the same one for a queue,
    // which keeps its order. One for now; a few, chosen by the name, if one thread ever limits.
    // Error when its thread cannot start.
    SendFlusher& flusher_for(std::string_view queue);

  private:
    ConnectionPool& pool_;
    std::mutex mutex_;
    std::unique_ptr<SendFlusher> flusher_;  // from the first send_async on
};

}  // namespace delayq::detail
