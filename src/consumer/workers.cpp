#include "consumer/workers.hpp"

#include <algorithm>
#include <variant>

#include "consumer/shared.hpp"
#include "validate.hpp"

namespace delayq::detail {

void Worker::run() {
    ConsumerShared& s = shared_;
    for (;;) {
        std::optional<Delivery> delivery;
        {
            std::unique_lock lock(s.mutex);
            s.workers_cv.wait(lock, [&] { return s.stopping || !s.buffered.empty(); });
            if (s.stopping) break;
            delivery.emplace(std::move(s.buffered.front()));
            s.buffered.pop_front();
            ++s.running;
        }
        Completion c;
        c.lease = LeaseRef{delivery->id(), delivery->token()};
        auto backoff = [&] {
            return s.options.backoff.delay_for(
                delivery->attempt(), std::uniform_real_distribution<double>(0.0, 1.0)(rng_));
        };
        try {
            Outcome outcome = s.handler(*delivery);
            if (auto* nack = std::get_if<Nack>(&outcome)) {
                c.kind = Completion::Kind::kNack;
                // A delay out of range must not become a request Redis refuses forever.
                c.delay =
                    std::clamp(nack->delay.value_or(backoff()), Duration(0), Duration(kMaxTimeMs));
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
        bool stopping = false;
        {
            std::lock_guard lock(s.mutex);
            --s.running;
            s.mark_completing(c.lease);
            s.completions.push_back(std::move(c));
            stopping = s.stopping;
        }
        s.completer_cv.notify_one();
        s.dispatcher_cv.notify_one();
        // Only the stop sequence waits for running handlers; waking it (and the extender, which
        // shares the condition) for every message would cost a context switch each.
        if (stopping) s.lifecycle_cv.notify_all();
    }
}

}  // namespace delayq::detail
