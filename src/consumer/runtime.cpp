#include "consumer/runtime.hpp"

#include <pthread.h>

#include <random>

#include "consumer/signals.hpp"
#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {

Duration reconnect_delay(int failures) {
    thread_local std::mt19937 rng{std::random_device{}()};
    double base = 50.0 * static_cast<double>(1 << std::min(failures, 7));
    base = std::min(base, 5000.0) * std::uniform_real_distribution<double>(0.5, 1.0)(rng);
    return Duration(static_cast<Duration::rep>(base));
}

void report_redis_error(ConsumerShared& shared, std::string_view loop, const std::exception& e) {
    shared.counters.redis_errors.fetch_add(1, std::memory_order_relaxed);
    log().warn("queue {}: {} failed, will retry: {}", shared.core->name(), loop, e.what());
}

ConsumerRuntime::ConsumerRuntime(std::shared_ptr<QueueCore> core, Handler handler,
                                 ConsumerOptions options)
    : shared_(std::move(core), std::move(handler), std::move(options)) {
    if (!shared_.handler) throw InvalidArgument("a consumer needs a handler");
    validate_consumer_options(shared_.options);
    for (std::size_t i = 0; i < shared_.options.concurrency; ++i) {
        workers_.push_back(std::make_unique<Worker>(shared_));
        shared_.workers.push_back(workers_.back().get());
    }
}

ConsumerRuntime::~ConsumerRuntime() {
    forget_signals(this);
    stop();
    if (supervisor_.joinable()) supervisor_.join();
    // Handlers that overran the shutdown deadline cannot be interrupted: wait for them here.
    for (auto& w : workers_) w->join();
}

void ConsumerRuntime::start() {
    {
        std::lock_guard lock(shared_.mutex);
        if (started_) return;
        started_ = true;
    }
    // Outside the lock: the signal watcher takes its own lock, then ours (in stop()).
    if (shared_.options.stop_on_signals) stop_on_signals(this);
    extender_.start();
    completer_.start();
    for (auto& w : workers_) w->start();
    notifier_.start();
    dispatcher_.start();
    supervisor_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "dq-supervise");
        supervise();
    });
}

void ConsumerRuntime::stop() {
    std::lock_guard lock(shared_.mutex);
    if (!started_) {
        started_ = true;  // a consumer stopped before it started never starts
        shared_.stopped = true;
    }
    shared_.request_stop();
    shared_.dispatcher_cv.notify_all();
    shared_.workers_cv.notify_all();
    shared_.lifecycle_cv.notify_all();
}

void ConsumerRuntime::wait() {
    std::unique_lock lock(shared_.mutex);
    shared_.lifecycle_cv.wait(lock, [&] { return shared_.stopped; });
    if (shared_.fatal) std::rethrow_exception(shared_.fatal);
}

void ConsumerRuntime::supervise() {
    ConsumerShared& s = shared_;
    {
        std::unique_lock lock(s.mutex);
        s.lifecycle_cv.wait(lock, [&] { return s.stopping; });
    }
    dispatcher_.join();
    notifier_.join();
    const auto deadline = SteadyClock::now() + s.options.shutdown_timeout;
    std::unique_lock lock(s.mutex);
    // Leased messages no handler started go back at once instead of waiting out their lease:
    // those in the buffer and those a worker took but has not started.
    auto release = [&](const Delivery& d) {
        Completion c;
        c.kind = Completion::Kind::kRelease;
        c.lease = d.lease();
        s.completions.push_back(std::move(c));
    };
    for (const auto& d : s.buffered) release(d);
    s.buffered.clear();
    for (auto& w : workers_) {
        for (const auto& d : w->take_unstarted()) release(d);
    }
    s.completer_cv.notify_one();
    if (!s.lifecycle_cv.wait_until(lock, deadline, [&] { return s.running == 0; })) {
        log().warn(
            "queue {}: {} handlers still running at the shutdown deadline; their leases "
            "are no longer extended and their messages will be delivered again",
            s.core->name(), s.running);
        s.abandoned = true;
    }
    s.completer_stop = true;
    s.completer_cv.notify_one();
    if (!s.lifecycle_cv.wait_until(lock, deadline, [&] { return s.completer_done; })) {
        s.abandoned = true;
        s.lifecycle_cv.notify_all();
    }
    lock.unlock();
    completer_.join();
    lock.lock();
    s.extender_stop = true;
    s.lifecycle_cv.notify_all();
    lock.unlock();
    extender_.join();
    forget_signals(this);
    lock.lock();
    s.stopped = true;
    s.lifecycle_cv.notify_all();
}

ConsumerStats ConsumerRuntime::stats() const {
    const auto& c = shared_.counters;
    return ConsumerStats{c.fetched.load(),       c.acked.load(),    c.nacked.load(),
                         c.dead_lettered.load(), c.released.load(), c.leases_lost.load(),
                         c.redis_errors.load()};
}

}  // namespace delayq::detail
