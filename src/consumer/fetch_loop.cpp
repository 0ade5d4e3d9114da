#include "consumer/fetch_loop.hpp"

#include <optional>

#include "delayq/error.hpp"

namespace delayq::detail {

void FetchLoop::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_one();
}

void FetchLoop::room_freed() {
    // Through the mutex, so that the wake-up cannot fall between the loop's look at the buffer
    // and its wait.
    { std::lock_guard lock(mutex_); }
    cv_.notify_one();
}

void FetchLoop::may_be_due() {
    const std::uint64_t rounds = context_.core->fetch_share().rounds_sent();
    {
        std::lock_guard lock(mutex_);
        due_ = true;
        trigger_ = rounds;
    }
    cv_.notify_one();
}

void FetchLoop::take(FetchResult& result) {
    ConsumerCounters& counters = context_.counters;
    counters.fetched.fetch_add(result.deliveries.size(), std::memory_order_relaxed);
    // A message delivered here again while an older lease is still held: that one lapsed.
    counters.leases_lost.fetch_add(held_.hold(result.deliveries), std::memory_order_relaxed);
    buffer_.add(result.deliveries);
    for (const auto& event : result.dead_lettered) report_dead_letter(context_, event);
}

void FetchLoop::run() {
    QueueCore& core = *context_.core;
    std::optional<Connection> conn;
    int failures = 0;
    {
        // The first fetch is made after start, so that nothing sent before the waiter
        // subscribed is missed: only a round sent from here on answers it.
        std::lock_guard lock(mutex_);
        trigger_ = core.fetch_share().rounds_sent();
    }
    for (;;) {
        std::size_t want = 0;
        std::uint64_t trigger = 0;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || (want = buffer_.room()) > 0; });
            if (stop_) break;
            // The clock firing from here on may concern messages this fetch does not see.
            due_ = false;
            trigger = trigger_;
        }
        FetchShare::Share share;
        try {
            // After the cluster moved the queue's slot, a connection to the new primary.
            if (conn && !core.serves(*conn)) conn.reset();
            if (!conn) conn.emplace(core.connect());
            share = core.fetch_share().fetch(want, context_.options.visibility_timeout, trigger,
                                             [&](std::size_t n, Duration visibility) {
                                                 return core.fetch(*conn, n, visibility);
                                             });
            failures = 0;
        } catch (const ConfigurationError&) {
            on_fatal_(std::current_exception());
            break;
        } catch (const PermissionError&) {
            // The Redis user may not fetch from this queue: retrying would only hide it.
            on_fatal_(std::current_exception());
            break;
        } catch (const Error& e) {
            context_.report_redis_error("fetch", e);
            conn.reset();
            std::unique_lock lock(mutex_);
            cv_.wait_for(lock, reconnect_delay(failures++), [&] { return stop_; });
            continue;
        }
        FetchResult& r = share.result;
        take(r);
        // More is due already (a full batch, or more lapsed leases than one sweep takes).
        if (r.next && *r.next <= r.now) continue;

        // Nothing more is due: sleep until the clock fires for the next due time or lease
        // deadline. After a full batch too: asking again at once would only find nothing (one
        // wasted fetch per message at low rates).
        clock_.note_fetch(r, share.received);
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || due_; });
    }
}

}  // namespace delayq::detail
