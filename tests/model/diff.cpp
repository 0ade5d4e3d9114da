#include "model/diff.hpp"

#include <cstdio>

namespace delayq::model {
std::string show(const std::string& s) {
    constexpr std::size_t kShown = 60;
    if (s.size() <= kShown) return "\"" + s + "\"";
    return "\"" + s.substr(0, kShown) + "...\" (" + std::to_string(s.size()) + " bytes)";
}

std::string show(TimePoint t) { return std::to_string(t.time_since_epoch().count()) + "ms"; }
std::string show(Duration d) { return std::to_string(d.count()) + "ms"; }
std::string show(State s) { return std::string(to_string(s)); }
std::string show(bool b) { return b ? "true" : "false"; }

std::string show(double d) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", d);
    return text;
}

std::string show(CancelResult r) {
    switch (r) {
        case CancelResult::kCancelled:
            return "cancelled";
        case CancelResult::kNotFound:
            return "not_found";
        case CancelResult::kInFlight:
            return "in_flight";
        case CancelResult::kDead:
            return "dead";
    }
    return "?";
}

std::string show(RescheduleStatus s) {
    switch (s) {
        case RescheduleStatus::kRescheduled:
            return "rescheduled";
        case RescheduleStatus::kNotFound:
            return "not_found";
        case RescheduleStatus::kInFlight:
            return "in_flight";
        case RescheduleStatus::kDead:
            return "dead";
    }
    return "?";
}

std::string show(LeaseStatus s) {
    switch (s) {
        case LeaseStatus::kAcked:
            return "acked";
        case LeaseStatus::kRetrying:
            return "retrying";
        case LeaseStatus::kDeadLettered:
            return "dead_lettered";
        case LeaseStatus::kExtended:
            return "extended";
        case LeaseStatus::kReleased:
            return "released";
        case LeaseStatus::kLost:
            return "lost";
    }
    return "?";
}

std::string show(DeleteStatus s) { return s == DeleteStatus::kDeleted ? "deleted" : "in_flight"; }

void compare(Diff& d, std::string_view what, const MessageInfo& e, const MessageInfo& a) {
    d.eq(what, "id", e.id, a.id);
    d.eq(what, "state", e.state, a.state);
    d.eq(what, "due", e.due, a.due);
    d.eq(what, "lease_deadline", e.lease_deadline, a.lease_deadline);
    d.eq(what, "dead_at", e.dead_at, a.dead_at);
    d.eq(what, "expire_at", e.expire_at, a.expire_at);
    d.eq(what, "attempts", e.attempts, a.attempts);
    d.eq(what, "max_attempts", e.max_attempts, a.max_attempts);
    d.eq(what, "dead_reason", e.dead_reason, a.dead_reason);
    d.eq(what, "last_error", e.last_error, a.last_error);
    d.eq(what, "payload", e.payload, a.payload);
}

void compare(Diff& d, std::string_view what, const SendResult& e, const SendResult& a) {
    // A generated id is checked when the model binds it.
    if (!e.id.empty()) d.eq(what, "id", e.id, a.id);
    d.eq(what, "duplicate", e.duplicate, a.duplicate);
    d.eq(what, "due", e.due, a.due);
}

void compare(Diff& d, std::string_view what, const LeaseResult& e, const LeaseResult& a) {
    d.eq(what, "status", e.status, a.status);
    d.eq(what, "at", e.at, a.at);
    d.eq(what, "dead_reason", e.dead_reason, a.dead_reason);
    d.eq(what, "attempts", e.attempts, a.attempts);
}

void compare(Diff& d, std::string_view what, const RescheduleResult& e, const RescheduleResult& a) {
    d.eq(what, "status", e.status, a.status);
    d.eq(what, "due", e.due, a.due);
}

void compare(Diff& d, std::string_view what, const DeleteResult& e, const DeleteResult& a) {
    d.eq(what, "status", e.status, a.status);
    d.eq(what, "pending", e.pending, a.pending);
    d.eq(what, "in_flight", e.in_flight, a.in_flight);
    d.eq(what, "dead", e.dead, a.dead);
}

void compare(Diff& d, std::string_view what, const QueueSettings& e, const QueueSettings& a) {
    d.eq(what, "max_attempts", e.max_attempts, a.max_attempts);
    d.eq(what, "backoff.initial", e.backoff.initial, a.backoff.initial);
    d.eq(what, "backoff.max", e.backoff.max, a.backoff.max);
    d.eq(what, "backoff.multiplier", e.backoff.multiplier, a.backoff.multiplier);
    d.eq(what, "backoff.jitter", e.backoff.jitter, a.backoff.jitter);
    d.eq(what, "dead_max_count", e.dead_max_count, a.dead_max_count);
    d.eq(what, "dead_max_age", e.dead_max_age, a.dead_max_age);
    d.eq(what, "paused", e.paused, a.paused);
    d.eq(what, "layout", e.layout, a.layout);
}

void compare(Diff& d, std::string_view what, const QueueStats& e, const QueueStats& a) {
    d.eq(what, "now", e.now, a.now);
    d.eq(what, "scheduled", e.scheduled, a.scheduled);
    d.eq(what, "ready", e.ready, a.ready);
    d.eq(what, "in_flight", e.in_flight, a.in_flight);
    d.eq(what, "dead", e.dead, a.dead);
    d.eq(what, "next_due", e.next_due, a.next_due);
    d.eq(what, "oldest_due", e.oldest_due, a.oldest_due);
    d.eq(what, "oldest_ready_age", e.oldest_ready_age, a.oldest_ready_age);
    const Totals& et = e.totals;
    const Totals& at = a.totals;
    d.eq(what, "totals.sent", et.sent, at.sent);
    d.eq(what, "totals.delivered", et.delivered, at.delivered);
    d.eq(what, "totals.acked", et.acked, at.acked);
    d.eq(what, "totals.retried", et.retried, at.retried);
    d.eq(what, "totals.dead_lettered", et.dead_lettered, at.dead_lettered);
    d.eq(what, "totals.expired", et.expired, at.expired);
    d.eq(what, "totals.cancelled", et.cancelled, at.cancelled);
    d.eq(what, "totals.released", et.released, at.released);
    d.eq(what, "totals.requeued", et.requeued, at.requeued);
    d.eq(what, "totals.purged", et.purged, at.purged);
    d.eq(what, "totals.dead_trimmed", et.dead_trimmed, at.dead_trimmed);
    d.eq(what, "totals.orphans_removed", et.orphans_removed, at.orphans_removed);
    d.eq(what, "lateness.sum", e.lateness.sum, a.lateness.sum);
    d.eq(what, "lateness.count", e.lateness.count, a.lateness.count);
    d.eq(what, "lateness.buckets.size", e.lateness.buckets.size(), a.lateness.buckets.size());
    for (std::size_t b = 0; b < std::min(e.lateness.buckets.size(), a.lateness.buckets.size());
         ++b) {
        const std::string name = std::string(what) + "." + "lateness.le[" + std::to_string(b) + "]";
        d.eq(name + ".le", e.lateness.buckets[b].le, a.lateness.buckets[b].le);
        d.eq(name + ".count", e.lateness.buckets[b].count, a.lateness.buckets[b].count);
    }
}

void compare(Diff& d, std::string_view what, const ExpectedFetch& e, const FetchResult& a,
             std::uint64_t& last_token) {
    d.eq(what, "now", show(TimePoint(Duration(e.now))), show(a.now));
    std::optional<TimePoint> next;
    if (e.next) next = TimePoint(Duration(*e.next));
    d.eq(what, "next", next, a.next);
    d.eq(what, "deliveries.size", e.deliveries.size(), a.deliveries.size());
    for (std::size_t i = 0; i < std::min(e.deliveries.size(), a.deliveries.size()); ++i) {
        const std::string name = std::string(what) + "." + "deliveries[" + std::to_string(i) + "]";
        const ExpectedDelivery& x = e.deliveries[i];
        const Delivery& y = a.deliveries[i];
        d.eq(name + ".id", x.id, y.id());
        d.eq(name + ".payload", x.payload, y.payload());
        d.eq(name + ".attempt", x.attempt, y.attempt());
        d.eq(name + ".max_attempts", x.max_attempts, y.max_attempts());
        d.eq(name + ".due", show(TimePoint(Duration(x.due))), show(y.due()));
        d.eq(name + ".delivered_at", show(TimePoint(Duration(e.now))), show(y.delivered_at()));
        d.eq(name + ".last_error", x.last_error, y.last_error());
        d.eq(name + ".queue", e.queue, y.queue());
        // Tokens come from the queue's counter, which only increases: every lease is new.
        if (y.lease().token() <= last_token) {
            d.add(name + ".token " + std::to_string(y.lease().token()) +
                  " is not above the last one handed out, " + std::to_string(last_token));
        }
        last_token = std::max(last_token, y.lease().token());
    }
    d.eq(what, "dead_lettered.size", e.dead_lettered.size(), a.dead_lettered.size());
    for (std::size_t i = 0; i < std::min(e.dead_lettered.size(), a.dead_lettered.size()); ++i) {
        const std::string name =
            std::string(what) + "." + "dead_lettered[" + std::to_string(i) + "]";
        d.eq(name + ".queue", e.dead_lettered[i].queue, a.dead_lettered[i].queue);
        d.eq(name + ".id", e.dead_lettered[i].id, a.dead_lettered[i].id);
        d.eq(name + ".reason", e.dead_lettered[i].reason, a.dead_lettered[i].reason);
        d.eq(name + ".attempts", e.dead_lettered[i].attempts, a.dead_lettered[i].attempts);
    }
}

void compare(Diff& d, std::string_view what, const std::optional<PushTargetInfo>& e,
             const std::optional<PushTargetInfo>& a) {
    d.eq(what, "exists", e.has_value(), a.has_value());
    if (!e || !a) return;
    d.eq(what, "url", e->url, a->url);
    d.eq(what, "method", std::string(to_string(e->method)), std::string(to_string(a->method)));
    d.eq(what, "content_type", e->content_type, a->content_type);
    d.eq(what, "header_names.size", e->header_names.size(), a->header_names.size());
    for (std::size_t i = 0; i < std::min(e->header_names.size(), a->header_names.size()); ++i) {
        d.eq(what, "header_names[" + std::to_string(i) + "]", e->header_names[i],
             a->header_names[i]);
    }
    d.eq(what, "request_timeout", e->request_timeout, a->request_timeout);
    d.eq(what, "max_in_flight", e->max_in_flight, a->max_in_flight);
    d.eq(what, "rate", e->rate, a->rate);
    d.eq(what, "secrets", e->secrets, a->secrets);
    d.eq(what, "updated", e->updated, a->updated);
    d.eq(what, "last", e->last.has_value(), a->last.has_value());
    if (e->last && a->last) {
        d.eq(what, "last.at", e->last->at, a->last->at);
        d.eq(what, "last.status", e->last->status, a->last->status);
        d.eq(what, "last.error", e->last->error, a->last->error);
    }
}

void check_identity(Diff& d, std::string_view what, const QueueStats& a) {
    const Totals& t = a.totals;
    const std::uint64_t held = t.acked + t.cancelled + t.purged + t.dead_trimmed +
                               t.orphans_removed + a.scheduled + a.ready + a.in_flight + a.dead;
    if (t.sent != held) {
        d.add(std::string(what) + ": sent " + std::to_string(t.sent) +
              " != acked + cancelled + purged + dead_trimmed + orphans_removed + pending + "
              "in_flight + dead = " +
              std::to_string(held));
    }
}

}  // namespace delayq::model
