#include "http/io_pool.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>

namespace delayq::server::http {
namespace {

namespace net = boost::asio;

// Each context is run by one thread, but other threads post to it (the answers of requests
// handled elsewhere): hint 1 lets Asio use its single-thread fast paths and keep its locks.
constexpr int kOneThread = 1;

}  // namespace

IoPool::IoPool(std::size_t threads) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
        contexts_.push_back(std::make_unique<net::io_context>(kOneThread));
    }
}

IoPool::~IoPool() { stop(); }

net::io_context& IoPool::next() {
    return *contexts_[next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size()];
}

void IoPool::start() {
    for (auto& context : contexts_) {
        guards_.push_back(
            std::make_shared<net::executor_work_guard<net::io_context::executor_type>>(
                context->get_executor()));
        threads_.emplace_back([io = context.get()] {
            // A handler's exception must not end an I/O thread; sessions catch their own, so
            // this is the last line only.
            while (true) {
                try {
                    io->run();
                    return;
                } catch (const std::exception& e) {
                    spdlog::error("http: an I/O handler threw: {}", e.what());
                }
            }
        });
    }
}

void IoPool::stop() {
    guards_.clear();
    for (auto& context : contexts_) context->stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
}

}  // namespace delayq::server::http
