#include "batch_acker.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <delayq/error.hpp>
#include <utility>

#include "errors.hpp"

namespace delayq::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

std::chrono::milliseconds retry_delay(int failures) {
    const auto d = std::chrono::milliseconds(100) * (1 << std::min(failures, 5));
    return std::min<std::chrono::milliseconds>(d, std::chrono::seconds(2));
}

}  // namespace

BatchAcker::BatchAcker(Leases leases, Duration visibility)
    : leases_(std::move(leases)), visibility_(visibility), thread_([this] { run(); }) {}

BatchAcker::~BatchAcker() {
    try {
        finish();
    } catch (const std::exception& e) {
        // Unwinding from another failure: this one is only told.
        std::fprintf(stderr, "delayq: %s\n", e.what());
    }
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void BatchAcker::rethrow_failure() {
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void BatchAcker::push(std::vector<Lease> leases) {
    if (leases.empty()) return;
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !waiting_ || failure_; });
    rethrow_failure();
    waiting_ = std::move(leases);
    cv_.notify_all();
}

void BatchAcker::finish() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return (!waiting_ && !busy_) || failure_; });
    rethrow_failure();
}

void BatchAcker::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [&] { return stop_ || waiting_; });
        if (!waiting_) return;  // stopped with nothing left
        const std::vector<Lease> batch = std::move(*waiting_);
        waiting_.reset();
        busy_ = true;
        cv_.notify_all();  // room for the next batch
        lock.unlock();
        std::exception_ptr failure;
        try {
            ack(batch);
        } catch (const std::exception&) {
            failure = std::current_exception();
        }
        lock.lock();
        busy_ = false;
        if (failure && !failure_) failure_ = failure;
        cv_.notify_all();
    }
}

void BatchAcker::ack(const std::vector<Lease>& leases) {
    // Retried while the leases may still hold: after that, the messages are due again anyway.
    const auto give_up = SteadyClock::now() + visibility_;
    for (int failures = 0;; ++failures) {
        try {
            const std::vector<LeaseResult> results = leases_.ack(leases);
            const auto lost = std::count_if(results.begin(), results.end(),
                                            [](const LeaseResult& r) { return r.lost(); });
            if (lost > 0) {
                std::fprintf(stderr,
                             "delayq: %td printed messages had lost their leases before they "
                             "were acked (the output was slower than --visibility); they will "
                             "be delivered again\n",
                             lost);
            }
            return;
        } catch (const ConfigurationError&) {
            throw;
        } catch (const PermissionError&) {
            throw;  // the Redis user's rights do not come back by trying again
        } catch (const Error& e) {
            if (SteadyClock::now() >= give_up) {
                throw RuntimeFailure("could not ack " + std::to_string(leases.size()) +
                                     " printed messages (" + e.what() +
                                     "); they will be delivered again");
            }
            std::fprintf(stderr, "delayq: acking printed messages failed (%s); trying again\n",
                         e.what());
            std::this_thread::sleep_for(retry_delay(failures));
        }
    }
}

}  // namespace delayq::cli
