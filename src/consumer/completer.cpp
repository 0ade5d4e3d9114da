#include "consumer/completer.hpp"

#include <optional>
#include <vector>

#include "consumer/shared.hpp"
#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {
namespace {

using Kind = Completion::Kind;

// Records the outcome of one Redis call for a completion.
void settle(ConsumerShared& s, Completion& c, bool lease_held) {
    c.sent = true;
    if (lease_held) return;
    {
        // The extender counts a lease it finds gone while the handler runs, and forgets it: the
        // same lost delivery is then not counted again when its outcome is refused.
        std::lock_guard lock(s.mutex);
        auto it = s.held.find(c.lease.id());
        if (it != s.held.end() && it->second.token == c.lease.token()) {
            s.counters.leases_lost.fetch_add(1, std::memory_order_relaxed);
        }
    }
    log().warn(
        "queue {}: lease of message {} was lost before its outcome was recorded; it is or "
        "will be delivered again",
        s.core->name(), c.lease.id());
}

// Sends the acks or the releases of a batch, in chunks of one script call each.
template <typename Call>
void send_grouped(ConsumerShared& s, std::vector<Completion>& batch, Kind kind,
                  std::atomic<std::uint64_t>& counter, Call&& call) {
    std::vector<Completion*> group;
    std::vector<Lease> leases;
    for (auto& c : batch) {
        if (c.kind != kind || c.sent) continue;
        group.push_back(&c);
        leases.push_back(c.lease);
    }
    for (std::size_t i = 0; i < leases.size(); i += kMaxBatch) {
        std::span chunk(leases.data() + i, std::min(kMaxBatch, leases.size() - i));
        const std::vector<LeaseResult> results = call(chunk);
        for (std::size_t j = 0; j < chunk.size(); ++j) {
            const bool held = !results[j].lost();
            if (held) counter.fetch_add(1, std::memory_order_relaxed);
            settle(s, *group[i + j], held);
        }
    }
}

void report_dead_letter(ConsumerShared& s, const Completion& c, const LeaseResult& r) {
    s.counters.dead_lettered.fetch_add(1, std::memory_order_relaxed);
    if (!s.options.on_dead_letter) return;
    try {
        s.options.on_dead_letter(
            DeadLetterEvent{s.core->name(), c.lease.id(), r.dead_reason, r.attempts});
    } catch (...) {
        log().error("queue {}: on_dead_letter hook threw", s.core->name());
    }
}

// Sends what of a batch has not reached Redis yet; throws on a Redis failure, leaving the rest
// unsent for a retry.
void send_batch(ConsumerShared& s, Connection& conn, std::vector<Completion>& batch) {
    send_grouped(s, batch, Kind::kAck, s.counters.acked,
                 [&](std::span<const Lease> chunk) { return s.core->ack(conn, chunk); });
    send_grouped(s, batch, Kind::kRelease, s.counters.released,
                 [&](std::span<const Lease> chunk) { return s.core->release(conn, chunk); });
    for (auto& c : batch) {
        if (c.sent || (c.kind != Kind::kNack && c.kind != Kind::kReject)) continue;
        const LeaseResult r =
            s.core->nack(conn, c.lease, c.delay, c.error, c.kind == Kind::kReject);
        if (r.status == LeaseStatus::kDeadLettered) report_dead_letter(s, c, r);
        if (r.status == LeaseStatus::kRetrying) {
            s.counters.nacked.fetch_add(1, std::memory_order_relaxed);
        }
        settle(s, c, !r.lost());
    }
}

}  // namespace

void Completer::run() {
    ConsumerShared& s = shared_;
    std::optional<Connection> conn;
    int failures = 0;
    std::vector<Completion> batch;
    for (;;) {
        {
            std::unique_lock lock(s.mutex);
            if (batch.empty()) {
                s.completer_cv.wait(lock,
                                    [&] { return s.completer_stop || !s.completions.empty(); });
                if (s.completions.empty()) {  // stopping and drained
                    s.completer_done = true;
                    s.lifecycle_cv.notify_all();
                    break;
                }
                batch.assign(std::make_move_iterator(s.completions.begin()),
                             std::make_move_iterator(s.completions.end()));
                s.completions.clear();
            }
        }
        try {
            if (!conn) conn.emplace(s.core->client().connect());
            send_batch(s, *conn, batch);
            failures = 0;
        } catch (const Error& e) {
            report_redis_error(s, "ack/nack", e);
            conn.reset();
            std::unique_lock lock(s.mutex);
            if (s.abandoned) {
                log().warn(
                    "queue {}: giving up on {} outcomes at shutdown; their messages will "
                    "be delivered again when their leases run out",
                    s.core->name(), batch.size());
                for (const auto& c : batch) s.forget(c.lease);
                batch.clear();
                continue;
            }
            // Retry what is unsent. A call whose reply was lost may have taken effect; repeated,
            // it finds the lease gone and is counted as a lost lease, which is harmless.
            s.sleep_for(lock, reconnect_delay(failures++), [&] { return s.abandoned; });
            continue;
        }
        std::lock_guard lock(s.mutex);
        for (const auto& c : batch) s.forget(c.lease);
        batch.clear();
    }
}

}  // namespace delayq::detail
