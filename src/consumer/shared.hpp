#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "delayq/consumer.hpp"
#include "queue_core.hpp"

namespace delayq::detail {

using SteadyClock = std::chrono::steady_clock;

// How much work an automatic prefetch holds beyond the running handlers (ConsumerOptions).
constexpr std::chrono::nanoseconds kAutoPrefetchWindow = std::chrono::milliseconds(10);

class Worker;

// What a handler (or the stop sequence) decided about a delivery, for the completer to send.
struct Completion {
    enum class Kind { kAck, kNack, kReject, kRelease };
    Kind kind = Kind::kAck;
    Lease lease;
    std::optional<Duration> delay{};  // none: the queue's backoff
    std::string error;
    bool sent = false;  // reached Redis; a retry of the batch skips it
};

struct ConsumerCounters {
    std::atomic<std::uint64_t> fetched{0};
    std::atomic<std::uint64_t> acked{0};
    std::atomic<std::uint64_t> nacked{0};
    std::atomic<std::uint64_t> dead_lettered{0};
    std::atomic<std::uint64_t> released{0};
    std::atomic<std::uint64_t> leases_lost{0};
    std::atomic<std::uint64_t> redis_errors{0};
};

// A lease the consumer holds, from fetch until its outcome reached Redis.
struct HeldLease {
    std::uint64_t token = 0;
    // The handler is done and the outcome is on its way: an extension that finds the lease gone
    // then only means the ack or nack got there first.
    bool completing = false;
};

// State shared by one consumer's threads. Everything below `mutex` is guarded by it.
struct ConsumerShared {
    ConsumerShared(std::shared_ptr<QueueCore> queue_core, Handler h, ConsumerOptions o)
        : core(std::move(queue_core)), handler(std::move(h)), options(std::move(o)) {}

    const std::shared_ptr<QueueCore> core;
    const Handler handler;
    const ConsumerOptions options;
    ConsumerCounters counters;

    std::mutex mutex;
    std::condition_variable dispatcher_cv;  // capacity freed, wake-up signal, stop
    std::condition_variable workers_cv;     // a delivery buffered, stop
    std::condition_variable completer_cv;   // a completion queued, stop
    std::condition_variable lifecycle_cv;   // handlers finished, stop phases, back-off sleeps

    std::deque<Delivery> buffered;  // leased, no handler started yet
    // Deliveries workers took from `buffered` and have not started (each worker keeps its own
    // under its own mutex). An idle worker steals from the others while this is not 0.
    std::atomic<std::size_t> taken_unstarted{0};
    std::vector<Worker*> workers;  // set once before any thread starts
    std::size_t running = 0;  // handlers running, and deliveries a worker took but has not started
    std::unordered_map<std::string, HeldLease> held;  // id -> every lease held
    std::deque<Completion> completions;

    // The last chunk of handlers a worker ran was fast: the dispatcher then wakes one worker
    // per fetch, which takes a large chunk and wakes another only for what it left; after slow
    // handlers it wakes one per delivery.
    std::atomic<bool> handlers_fast{false};
    // Mean time of one handler call, smoothed (record_handler_time); 0 until one has run.
    std::atomic<std::int64_t> handler_ns{0};

    bool watching = false;  // an idle worker wakes after the chunk budget to steal (workers.cpp)

    bool stopping = false;  // no more fetching, no more handler starts
    // `stopping`, readable without the mutex: a worker checks it between the deliveries it took
    // at once.
    std::atomic<bool> stop_requested{false};
    bool completer_stop = false;  // flush what is queued, then end
    bool extender_stop = false;
    bool abandoned = false;  // the shutdown deadline passed with handlers still running
    bool completer_done = false;
    bool stopped = false;
    std::exception_ptr fatal;

    // The earliest due time a producer signalled since the dispatcher's last fetch, as a local
    // steady time; the dispatcher wakes for it.
    std::optional<SteadyClock::time_point> signalled;
    bool have_offset = false;
    std::chrono::milliseconds clock_offset{0};  // Redis time minus steady time

    // Call with the mutex held.
    void request_stop() {
        stopping = true;
        stop_requested.store(true, std::memory_order_relaxed);
    }

    std::size_t capacity() const {
        std::size_t busy = buffered.size() + running;
        std::size_t limit = options.concurrency + prefetch();
        return busy >= limit ? 0 : limit - busy;
    }

    // The prefetch option, or when unset what the handlers finish in kAutoPrefetchWindow at their
    // measured speed: a message held beyond the running handlers waits about that long at most,
    // and a fetch of many messages costs Redis a fraction of a fetch per message.
    std::size_t prefetch() const {
        if (options.prefetch) return *options.prefetch;
        const std::int64_t ns = handler_ns.load(std::memory_order_relaxed);
        if (ns <= 0) return 0;
        const auto n =
            static_cast<std::size_t>(kAutoPrefetchWindow.count() / ns) * options.concurrency;
        return std::min(n, options.max_batch);
    }

    // A worker ran `started` handlers in `elapsed`: a smoothed mean per handler, for prefetch().
    // Workers update it without a lock; a lost update only delays the mean by one chunk.
    void record_handler_time(std::chrono::nanoseconds elapsed, std::size_t started) {
        const std::int64_t per =
            std::max<std::int64_t>(1, elapsed.count() / static_cast<std::int64_t>(started));
        const std::int64_t old = handler_ns.load(std::memory_order_relaxed);
        handler_ns.store(old == 0 ? per : old + (per - old) / 4, std::memory_order_relaxed);
    }

    // Removes a lease from `held` if it is still this delivery's lease.
    void forget(const Lease& lease) {
        auto it = held.find(lease.id());
        if (it != held.end() && it->second.token == lease.token()) held.erase(it);
    }

    // The handler of this lease finished; its outcome is queued.
    void mark_completing(const Lease& lease) {
        auto it = held.find(lease.id());
        if (it != held.end() && it->second.token == lease.token()) it->second.completing = true;
    }

    // Sleeps up to `d`, or less if `until` becomes true. Call with `lock` held.
    template <typename Pred>
    void sleep_for(std::unique_lock<std::mutex>& lock, Duration d, Pred until) {
        lifecycle_cv.wait_for(lock, d, until);
    }
};

// Back-off before reconnecting after `failures` consecutive failures: 50 ms doubling to 5 s,
// with jitter so that many consumers do not reconnect in step.
Duration reconnect_delay(int failures);

// Logs and counts a Redis failure of a background loop; background threads never throw.
void report_redis_error(ConsumerShared& shared, std::string_view loop, const std::exception& e);

}  // namespace delayq::detail
