#include "consumer/workers.hpp"

#include <algorithm>
#include <variant>

#include "validate.hpp"

namespace delayq::detail {

Completion Worker::handle(const Delivery& delivery) {
    const ConsumerOptions& options = context_.options;
    Completion c;
    c.lease = delivery.lease();
    // Without a backoff of the consumer's own, no delay: the script applies the queue's.
    auto backoff = [&]() -> std::optional<Duration> {
        if (!options.backoff) return std::nullopt;
        return options.backoff->delay_for(delivery.attempt(),
                                          std::uniform_real_distribution<double>(0.0, 1.0)(rng_));
    };
    try {
        Outcome outcome = context_.handler(delivery);
        if (auto* nack = std::get_if<Nack>(&outcome)) {
            c.kind = Completion::Kind::kNack;
            // A delay out of range must not become a request Redis refuses forever.
            c.delay = nack->delay ? nack->delay : backoff();
            if (c.delay) c.delay = std::clamp(*c.delay, Duration(0), Duration(kMaxTimeMs));
            c.error = std::move(nack->error);
        } else if (auto* reject = std::get_if<Reject>(&outcome)) {
            c.kind = Completion::Kind::kReject;
            c.error = std::move(reject->error);
        }
    } catch (const std::exception& e) {
        c.kind = Completion::Kind::kNack;
        c.delay = backoff();
        c.error = e.what();
    } catch (...) {
        c.kind = Completion::Kind::kNack;
        c.delay = backoff();
        c.error = "handler threw a non-std exception";
    }
    return c;
}

void Worker::run() {
    std::vector<Completion> done;
    while (buffer_.take(slot_)) {
        const auto began = SteadyClock::now();
        std::size_t started = 0;
        // A chunk runs within the budget, and stops between deliveries once the consumer stops.
        while (started == 0 ||
               (SteadyClock::now() - began <= kChunkBudget && !buffer_.stopping())) {
            std::optional<Delivery> d = buffer_.next(slot_);
            if (!d) break;
            ++started;
            done.push_back(handle(*d));
        }
        const auto elapsed = SteadyClock::now() - began;
        // Before the outcome can reach Redis: a lease found gone from here on is no loss.
        held_.mark_completing(done);
        completions_.push(done);
        buffer_.finished(slot_, started, elapsed);
    }
}

WorkerPool::WorkerPool(ConsumerContext& context, DeliveryBuffer& buffer, HeldLeases& held,
                       CompletionQueue& completions)
    : buffer_(buffer) {
    for (std::size_t i = 0; i < context.options.concurrency; ++i) {
        workers_.push_back(std::make_unique<Worker>(context, buffer, i, held, completions));
    }
}

void WorkerPool::start() {
    for (auto& w : workers_) w->start();
}

void WorkerPool::request_stop() { buffer_.request_stop(); }

bool WorkerPool::wait_idle(std::chrono::steady_clock::time_point deadline) {
    return buffer_.wait_idle(deadline);
}

void WorkerPool::join() {
    for (auto& w : workers_) w->join();
}

}  // namespace delayq::detail
