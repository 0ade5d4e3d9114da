#include "consumer/dispatcher.hpp"

#include <algorithm>
#include <optional>

#include "consumer/shared.hpp"
#include "delayq/error.hpp"
#include "log.hpp"

namespace delayq::detail {
namespace {

void report_dead_letters(ConsumerShared& shared, const std::vector<DeadLetterEvent>& events) {
    for (const auto& event : events) {
        shared.counters.dead_lettered.fetch_add(1, std::memory_order_relaxed);
        if (!shared.options.on_dead_letter) continue;
        try {
            shared.options.on_dead_letter(event);
        } catch (const std::exception& e) {
            log().error("queue {}: on_dead_letter hook threw: {}", shared.core->name(), e.what());
        } catch (...) {
            log().error("queue {}: on_dead_letter hook threw", shared.core->name());
        }
    }
}

}  // namespace

void Dispatcher::run() {
    ConsumerShared& s = shared_;
    std::optional<Connection> conn;
    int failures = 0;
    for (;;) {
        std::size_t want = 0;
        {
            std::unique_lock lock(s.mutex);
            s.dispatcher_cv.wait(lock, [&] { return s.stopping || s.capacity() > 0; });
            if (s.stopping) break;
            want = std::min(s.capacity(), s.options.max_batch);
            // Signals that arrive from here on may concern messages this fetch does not see.
            s.signalled.reset();
        }
        FetchResult r;
        try {
            if (!conn) conn.emplace(s.core->client().connect());
            r = s.core->fetch(*conn, want, s.options.visibility_timeout);
            failures = 0;
        } catch (const ConfigurationError&) {
            std::lock_guard lock(s.mutex);
            s.fatal = std::current_exception();
            s.request_stop();
            s.lifecycle_cv.notify_all();
            s.workers_cv.notify_all();
            break;
        } catch (const Error& e) {
            report_redis_error(s, "fetch", e);
            conn.reset();
            std::unique_lock lock(s.mutex);
            s.sleep_for(lock, reconnect_delay(failures++), [&] { return s.stopping; });
            continue;
        }
        auto received = SteadyClock::now();
        std::size_t got = r.deliveries.size();
        s.counters.fetched.fetch_add(got, std::memory_order_relaxed);
        {
            std::lock_guard lock(s.mutex);
            // Redis time minus local steady time, measured at the reply: it aims the next wake-up
            // at a Redis instant. It errs late by the reply's transit time, never early.
            s.clock_offset = std::chrono::duration_cast<Duration>(r.now.time_since_epoch()) -
                             std::chrono::duration_cast<Duration>(received.time_since_epoch());
            s.have_offset = true;
            for (auto& d : r.deliveries) {
                auto [it, fresh] = s.held.try_emplace(d.id(), HeldLease{d.lease().token(), false});
                if (!fresh) {
                    // Delivered here again while an older lease is still held: that one lapsed,
                    // counted now since its entry is replaced (settle() counts only leases still
                    // held). Not when its outcome is on its way: that may be a nack that reached
                    // Redis just before this fetch, which lost nothing.
                    if (!it->second.completing) {
                        s.counters.leases_lost.fetch_add(1, std::memory_order_relaxed);
                    }
                    it->second = HeldLease{d.lease().token(), false};
                }
                s.buffered.push_back(std::move(d));
            }
        }
        if (got > 0 && s.handlers_fast.load(std::memory_order_relaxed)) {
            s.workers_cv.notify_one();
        } else {
            for (std::size_t i = 0; i < got; ++i) s.workers_cv.notify_one();
        }
        report_dead_letters(s, r.dead_lettered);
        // More is due already (a full batch, or more lapsed leases than one sweep takes).
        if (r.next && *r.next <= r.now) continue;

        // Nothing more is due: sleep until the next due time or lease deadline. After a full
        // batch too: asking again at once would only find nothing (one wasted fetch per
        // message at low rates).
        auto wake = received + s.options.idle_check;
        if (r.next) wake = std::min(wake, received + (*r.next - r.now));
        std::unique_lock lock(s.mutex);
        for (;;) {
            auto target = s.signalled ? std::min(wake, *s.signalled) : wake;
            if (s.stopping || SteadyClock::now() >= target) break;
            s.dispatcher_cv.wait_until(lock, target);
        }
    }
}

}  // namespace delayq::detail
