#include "consumer/completer.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {
namespace {

using Kind = Completion::Kind;

// Records the outcome of one Redis call for a completion.
void settle(ConsumerContext& context, const HeldLeases& held, Completion& c, bool lease_held) {
    c.sent = true;
    if (lease_held) return;
    // The extender counts a lease it finds gone while the handler runs, and forgets it: the same
    // lost delivery is then not counted again when its outcome is refused.
    if (held.holds(c.lease)) context.counters.leases_lost.fetch_add(1, std::memory_order_relaxed);
    log().warn(
        "queue {}: lease of message {} was lost before its outcome was recorded; it is or "
        "will be delivered again",
        context.core->name(), c.lease.id());
}

// Sends the acks or the releases of a batch, in chunks of one script call each.
template <typename Call>
void send_grouped(ConsumerContext& context, const HeldLeases& held, std::vector<Completion>& batch,
                  Kind kind, std::atomic<std::uint64_t>& counter, Call&& call) {
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
            const bool lease_held = !results[j].lost();
            if (lease_held) counter.fetch_add(1, std::memory_order_relaxed);
            settle(context, held, *group[i + j], lease_held);
        }
    }
}

// Sends what of a batch has not reached Redis yet; throws on a Redis failure, leaving the rest
// unsent for a retry.
void send_batch(ConsumerContext& context, const HeldLeases& held, Connection& conn,
                std::vector<Completion>& batch) {
    QueueCore& core = *context.core;
    ConsumerCounters& counters = context.counters;
    send_grouped(context, held, batch, Kind::kAck, counters.acked,
                 [&](std::span<const Lease> chunk) { return core.ack(conn, chunk); });
    send_grouped(context, held, batch, Kind::kRelease, counters.released,
                 [&](std::span<const Lease> chunk) { return core.release(conn, chunk); });
    for (auto& c : batch) {
        if (c.sent || (c.kind != Kind::kNack && c.kind != Kind::kReject)) continue;
        const LeaseResult r = core.nack(conn, c.lease, c.delay, c.error, c.kind == Kind::kReject);
        if (r.status == LeaseStatus::kDeadLettered) {
            report_dead_letter(
                context, DeadLetterEvent{core.name(), c.lease.id(), r.dead_reason, r.attempts});
        }
        if (r.status == LeaseStatus::kRetrying) {
            counters.nacked.fetch_add(1, std::memory_order_relaxed);
        }
        settle(context, held, c, !r.lost());
    }
}

}  // namespace

void Completer::abandon() { abandoned_.request(); }

bool Completer::wait_flushed(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return flushed_cv_.wait_until(lock, deadline, [&] { return flushed_; });
}

void Completer::run() {
    const ConsumerOptions& options = context_.options;
    const Duration linger = std::min(options.ack_linger, options.visibility_timeout / 10);
    std::optional<Connection> conn;
    int failures = 0;
    std::vector<Completion> batch;
    for (;;) {
        if (batch.empty() && !completions_.take(batch, linger)) break;  // closed and drained
        try {
            // After the cluster moved the queue's slot, a connection to the new primary.
            if (conn && !context_.core->serves(*conn)) conn.reset();
            if (!conn) conn.emplace(context_.core->connect());
            send_batch(context_, held_, *conn, batch);
            failures = 0;
        } catch (const Error& e) {
            context_.report_redis_error("ack/nack", e);
            conn.reset();
            if (abandoned_.requested()) {
                log().warn(
                    "queue {}: giving up on {} outcomes at shutdown; their messages will "
                    "be delivered again when their leases run out",
                    context_.core->name(), batch.size());
                held_.forget(batch);
                batch.clear();
                continue;
            }
            // Retry what is unsent. A call whose reply was lost may have taken effect; repeated,
            // it finds the lease gone and is counted as a lost lease, which is harmless.
            abandoned_.sleep_for(reconnect_delay(failures++));
            continue;
        }
        held_.forget(batch);
        batch.clear();
    }
    {
        std::lock_guard lock(mutex_);
        flushed_ = true;
    }
    flushed_cv_.notify_all();
}

}  // namespace delayq::detail
