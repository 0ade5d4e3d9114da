#include "delayq/consumer.hpp"

#include "consumer/runtime.hpp"

namespace delayq {

Consumer::Consumer(Leases leases, Handler handler, ConsumerOptions options)
    : runtime_(std::make_unique<detail::ConsumerRuntime>(std::move(leases.core_),
                                                         std::move(handler), std::move(options))) {}

Consumer::~Consumer() = default;

void Consumer::start() { runtime_->start(); }

void Consumer::stop() { runtime_->stop(); }

void Consumer::wait() { runtime_->wait(); }

void Consumer::run() {
    start();
    wait();
}

ConsumerStats Consumer::stats() const { return runtime_->stats(); }

}  // namespace delayq
