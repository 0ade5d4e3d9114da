// The model's leases: fetch (with the lease sweep, expiry and lateness), ack, nack, reject and
// release (docs/design.md, sections 3 and 4).
#include <algorithm>
#include <cmath>
#include <functional>

#include "model/model.hpp"
#include "model/units.hpp"

namespace delayq::model {

Expect<ExpectedFetch> QueueModel::fetch(std::size_t max_count, Duration visibility) {
    unbound_.clear();
    if (max_count < 1 || max_count > kMaxBatch || visibility.count() < 1 ||
        !valid_delay(visibility)) {
        return std::nullopt;
    }
    return fetch_due(max_count, ms_of(visibility), nullptr);
}

ExpectedFetch QueueModel::fetch_due(std::size_t max_count, std::int64_t visibility_ms,
                                    const std::function<std::size_t()>& cap) {
    unbound_.clear();
    const std::int64_t now = now_ms();
    ExpectedFetch out;
    out.queue = name_;
    out.now = now;
    // Lapsed leases first: back to pending due now, or dead.
    std::vector<Entry*> lapsed;
    for (Entry* m : sorted(Place::kInFlight)) {
        if (m->score > now || lapsed.size() == kSweepLimit) break;
        lapsed.push_back(m);
    }
    for (Entry* m : lapsed) {
        const std::string why =
            "visibility timeout expired on attempt " + std::to_string(m->attempts);
        if (m->expire > 0 && m->expire <= now) {
            bury(*m, "expired", why, &out.dead_lettered);
        } else if (m->attempts >= max_of(*m)) {
            bury(*m, "attempts exhausted", why, &out.dead_lettered);
        } else {
            retry(*m, now, why);
        }
    }
    // Then up to max_count ready messages in (due, send) order; those past their expiry are
    // dead-lettered instead, and take their place in the count.
    std::vector<Entry*> taken;
    if (cap) max_count = cap();
    if (!settings_.paused) {
        for (Entry* m : sorted(Place::kPending)) {
            if (m->score > now || taken.size() == max_count) break;
            taken.push_back(m);
        }
    }
    for (Entry* m : taken) {
        if (m->expire > 0 && m->expire <= now) {
            m->due = m->score;
            bury(*m, "expired", std::nullopt, &out.dead_lettered);
            continue;
        }
        ++m->attempts;
        m->due = m->score;
        m->place = Place::kInFlight;
        m->score = now + visibility_ms;
        m->token = 0;
        ++totals_.delivered;
        count_lateness(now - m->due);
        out.deliveries.push_back({m->id, m->payload, m->attempts, max_of(*m), m->due,
                                  m->attempts > 1 ? m->last_error.value_or("") : ""});
        unbound_.push_back(m->id);
    }
    if (!lapsed.empty() || !taken.empty()) trim_dead();
    std::optional<std::int64_t> next;
    if (!settings_.paused) {
        if (const auto pending = sorted(Place::kPending); !pending.empty()) {
            next = pending.front()->score;
        }
    }
    if (const auto inflight = sorted(Place::kInFlight); !inflight.empty()) {
        if (!next || inflight.front()->score < *next) next = inflight.front()->score;
    }
    out.next = next;
    return out;
}

std::string QueueModel::bind_tokens(const std::vector<Delivery>& actual) {
    std::string wrong;
    if (actual.size() != unbound_.size()) wrong = "deliveries and the model's differ in number";
    for (std::size_t i = 0; i < std::min(actual.size(), unbound_.size()); ++i) {
        const auto it = messages_.find(unbound_[i]);
        if (it == messages_.end() || actual[i].id() != unbound_[i]) {
            wrong =
                "delivery " + std::to_string(i) + " is " + actual[i].id() + ", not " + unbound_[i];
            continue;
        }
        it->second.token = actual[i].lease().token();
    }
    unbound_.clear();
    return wrong;
}

std::string QueueModel::bind_read_tokens(const std::vector<Lease>& in_flight) {
    std::string wrong;
    for (const std::string& id : unbound_) {
        const auto lease = std::find_if(in_flight.begin(), in_flight.end(),
                                        [&](const Lease& l) { return l.id() == id; });
        if (lease == in_flight.end()) {
            wrong += (wrong.empty() ? "" : ", ") + id;
            continue;
        }
        messages_.at(id).token = lease->token();
    }
    unbound_.clear();
    return wrong.empty() ? "" : "delivered, yet not in flight: " + wrong;
}

Expect<std::vector<LeaseResult>> QueueModel::ack(std::span<const Lease> leases) {
    if (leases.size() > kMaxBatch) return std::nullopt;
    std::vector<LeaseResult> out;
    for (const Lease& lease : leases) {
        // A lease named twice is held only the first time: the first ack ends it.
        if (held(lease) == nullptr) {
            out.push_back({.status = LeaseStatus::kLost});
            continue;
        }
        messages_.erase(lease.id());
        ++totals_.acked;
        out.push_back({.status = LeaseStatus::kAcked});
    }
    return out;
}

Expect<LeaseResult> QueueModel::nack(const Lease& lease, const Nack& nack) {
    if (nack.delay && !valid_delay(*nack.delay)) return std::nullopt;
    Entry* m = held(lease);
    if (m == nullptr) return LeaseResult{.status = LeaseStatus::kLost};
    const std::int64_t now = now_ms();
    const std::string error = nack.error.substr(0, std::min(nack.error.size(), kMaxErrorBytes));
    std::string reason;
    if (m->expire > 0 && m->expire <= now) {
        reason = "expired";
    } else if (m->attempts >= max_of(*m)) {
        reason = "attempts exhausted";
    }
    if (!reason.empty()) {
        const int attempts = m->attempts;
        bury(*m, reason, error, nullptr);
        trim_dead();
        return LeaseResult{
            .status = LeaseStatus::kDeadLettered, .dead_reason = reason, .attempts = attempts};
    }
    const std::int64_t delay = nack.delay ? ms_of(*nack.delay) : backoff_ms(m->attempts);
    std::int64_t due = std::min(now + delay, kMaxTimeMs);
    if (m->expire > 0 && due > m->expire) due = m->expire;
    retry(*m, due, error);
    return LeaseResult{.status = LeaseStatus::kRetrying, .at = at_ms(due)};
}

LeaseResult QueueModel::reject(const Lease& lease, const Reject& reject) {
    Entry* m = held(lease);
    if (m == nullptr) return LeaseResult{.status = LeaseStatus::kLost};
    const int attempts = m->attempts;
    bury(*m, "rejected", reject.error.substr(0, std::min(reject.error.size(), kMaxErrorBytes)),
         nullptr);
    trim_dead();
    return LeaseResult{
        .status = LeaseStatus::kDeadLettered, .dead_reason = "rejected", .attempts = attempts};
}

Expect<std::vector<LeaseResult>> QueueModel::extend(std::span<const Lease> leases,
                                                    Duration visibility) {
    if (leases.empty()) return std::vector<LeaseResult>{};
    if (leases.size() > kMaxBatch || visibility.count() < 1 || !valid_delay(visibility)) {
        return std::nullopt;
    }
    std::vector<LeaseResult> out;
    const std::int64_t deadline = now_ms() + ms_of(visibility);
    for (const Lease& lease : leases) {
        Entry* m = held(lease);
        if (m == nullptr) {
            out.push_back({.status = LeaseStatus::kLost});
            continue;
        }
        m->score = deadline;
        out.push_back({.status = LeaseStatus::kExtended, .at = at_ms(deadline)});
    }
    return out;
}

Expect<std::vector<LeaseResult>> QueueModel::release(std::span<const Lease> leases) {
    if (leases.size() > kMaxBatch) return std::nullopt;
    std::vector<LeaseResult> out;
    for (const Lease& lease : leases) {
        Entry* m = held(lease);
        if (m == nullptr) {
            out.push_back({.status = LeaseStatus::kLost});
            continue;
        }
        // Back at the due time of the delivery, which does not count as an attempt.
        m->place = Place::kPending;
        m->token = 0;
        m->score = m->due;
        --m->attempts;
        ++totals_.released;
        out.push_back({.status = LeaseStatus::kReleased});
    }
    return out;
}

}  // namespace delayq::model
