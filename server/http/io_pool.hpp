#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace delayq::server::http {

// The I/O threads: one io_context a thread, each connection on one of them for its whole life.
// A context shared by several threads made them contend for its queue and hand a connection's
// work from thread to thread through a strand: on 2 cores, 2 threads sharing one context served
// fewer requests than 1 thread alone (docs/benchmarks.md, The HTTP service).
class IoPool {
  public:
    explicit IoPool(std::size_t threads);
    ~IoPool();
    IoPool(const IoPool&) = delete;
    IoPool& operator=(const IoPool&) = delete;

    // The context of the next connection, round robin.
    boost::asio::io_context& next();
    // The context of the acceptor and of what is not a connection's.
    boost::asio::io_context& first() { return *contexts_.front(); }

    void start();
    // Ends the threads once each context has run out of work; contexts keep their work until
    // then (a handler holding a request during a graceful stop). Idempotent.
    void stop();

  private:
    std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
    // Keep each context's thread running while nothing is pending on it.
    std::vector<std::shared_ptr<void>> guards_;
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> next_{0};
};

}  // namespace delayq::server::http
