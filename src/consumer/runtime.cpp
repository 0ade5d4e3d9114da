#include "consumer/runtime.hpp"

#include <pthread.h>

#include "consumer/signals.hpp"
#include "log.hpp"

namespace delayq::detail {

ConsumerRuntime::ConsumerRuntime(std::shared_ptr<QueueCore> core, Handler handler,
                                 ConsumerOptions options)
    : context_(std::move(core), std::move(handler), std::move(options)) {}

ConsumerRuntime::~ConsumerRuntime() {
    forget_signals(this);
    stop();
    if (supervisor_.joinable()) supervisor_.join();
    // Handlers that overran the shutdown deadline cannot be interrupted: wait for them here.
    workers_.join();
}

void ConsumerRuntime::start() {
    {
        std::lock_guard lock(mutex_);
        if (started_) return;
        started_ = true;
    }
    // Outside the lock: the signal watcher takes its own lock, then ours (in stop()).
    if (context_.options.stop_on_signals) stop_on_signals(this);
    waiter_.clock().add_callback([this] { fetch_loop_.may_be_due(); });
    lease_extender_.start();
    completer_.start();
    workers_.start();
    waiter_.start();
    fetch_loop_.start();
    supervisor_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "dq-supervise");
        supervise();
    });
}

void ConsumerRuntime::stop() {
    {
        std::lock_guard lock(mutex_);
        if (!started_) {
            started_ = true;  // a consumer stopped before it started never starts
            stopped_ = true;
        }
        stop_requested_ = true;
    }
    cv_.notify_all();
    // The first steps of the stop sequence, at once: nothing more is fetched or started.
    fetch_loop_.request_stop();
    workers_.request_stop();
}

void ConsumerRuntime::fail(std::exception_ptr error) {
    {
        std::lock_guard lock(mutex_);
        if (!fatal_) fatal_ = std::move(error);
    }
    stop();
}

void ConsumerRuntime::wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return stopped_; });
    if (fatal_) std::rethrow_exception(fatal_);
}

void ConsumerRuntime::supervise() {
    {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stop_requested_; });
    }
    // 1. No more fetching and no more handler starts (stop() asked both already).
    fetch_loop_.join();
    waiter_.stop();
    const auto deadline = SteadyClock::now() + context_.options.shutdown_timeout;
    // 2. Leased messages no handler started go back at once instead of waiting out their
    // lease: those in the buffer and those a worker took but has not started.
    for (const Delivery& d : buffer_.take_unstarted()) {
        Completion release;
        release.kind = Completion::Kind::kRelease;
        release.lease = d.lease();
        completions_.push(std::move(release));
    }
    // 3. Running handlers get until the deadline.
    if (!workers_.wait_idle(deadline)) {
        log().warn(
            "queue {}: {} handlers still running at the shutdown deadline; their leases "
            "are no longer extended and their messages will be delivered again",
            context_.core->name(), buffer_.running());
        completer_.abandon();
    }
    // 4. Their outcomes reach Redis, or are given up at the deadline.
    completer_.request_stop();
    if (!completer_.wait_flushed(deadline)) completer_.abandon();
    completer_.join();
    // 5. Leases are extended until their outcomes are in.
    lease_extender_.request_stop();
    lease_extender_.join();
    forget_signals(this);
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    cv_.notify_all();
}

ConsumerStats ConsumerRuntime::stats() const {
    const auto& c = context_.counters;
    return ConsumerStats{c.fetched.load(),
                         c.acked.load(),
                         c.nacked.load(),
                         c.dead_lettered.load(),
                         c.released.load(),
                         c.leases_lost.load(),
                         c.redis_errors.load() + waiter_.stats().redis_errors};
}

}  // namespace delayq::detail
