// The model's inspection and administration: get, list, stats, dead-letter requeue and
// purge, settings, pause and delete (docs/design.md, sections 3 and 4).
#include <algorithm>

#include "model/model.hpp"
#include "model/units.hpp"

namespace delayq::model {

Expect<std::optional<MessageInfo>> QueueModel::get(const std::string& id) const {
    if (!valid_id(id)) return std::nullopt;
    const auto it = messages_.find(id);
    // Engaged: a valid id, with or without a message.
    if (it == messages_.end()) return Expect<std::optional<MessageInfo>>(std::in_place);
    return Expect<std::optional<MessageInfo>>(std::in_place, info(it->second));
}

std::vector<MessageInfo> QueueModel::list(State state) const {
    const Place place = state == State::kInFlight ? Place::kInFlight
                        : state == State::kDead   ? Place::kDead
                                                  : Place::kPending;
    std::vector<MessageInfo> out;
    for (const Entry* m : sorted(place)) {
        MessageInfo i = info(*m);
        if (i.state == state) out.push_back(std::move(i));
    }
    return out;
}

QueueStats QueueModel::stats() const {
    const std::int64_t now = now_ms();
    QueueStats s;
    s.now = at_ms(now);
    for (const Entry* m : sorted(Place::kPending)) {
        if (!s.oldest_due) s.oldest_due = at_ms(m->score);
        if (m->score <= now) {
            ++s.ready;
        } else {
            ++s.scheduled;
            if (!s.next_due) s.next_due = at_ms(m->score);
        }
    }
    s.in_flight = sorted(Place::kInFlight).size();
    s.dead = sorted(Place::kDead).size();
    if (s.oldest_due && ms_of(*s.oldest_due) <= now) s.oldest_ready_age = s.now - *s.oldest_due;
    s.totals = totals_;
    s.lateness.sum = Duration(lateness_sum_);
    for (std::size_t b = 0; b < kLatenessBuckets; ++b) {
        s.lateness.count += lateness_[b];
        s.lateness.buckets.push_back({lateness_bounds()[b], s.lateness.count});
    }
    return s;
}

Expect<std::size_t> QueueModel::requeue(const DeadLetterSelector& which) {
    const auto selected = select_dead(which);
    if (!selected) return std::nullopt;
    for (Entry* m : *selected) {
        m->place = Place::kPending;
        m->score = now_ms();
        m->due = now_ms();
        m->attempts = 0;
        m->expire = 0;
        m->token = 0;
        m->reason.clear();
        m->last_error.reset();
    }
    totals_.requeued += selected->size();
    return selected->size();
}

Expect<std::size_t> QueueModel::purge(const DeadLetterSelector& which) {
    const auto selected = select_dead(which);
    if (!selected) return std::nullopt;
    std::vector<std::string> ids;
    for (const Entry* m : *selected) ids.push_back(m->id);
    for (const std::string& id : ids) messages_.erase(id);
    totals_.purged += ids.size();
    return ids.size();
}

Expect<QueueSettings> QueueModel::update_settings(const SettingsUpdate& u) {
    if (u.max_attempts && (*u.max_attempts < 1 || *u.max_attempts > delayq::kMaxAttempts)) {
        return std::nullopt;
    }
    if (u.backoff && !valid_backoff(*u.backoff)) return std::nullopt;
    if (u.dead_max_count && *u.dead_max_count > kMaxDeadCount) return std::nullopt;
    if (u.dead_max_age && !valid_delay(*u.dead_max_age)) return std::nullopt;
    const bool changes = u.max_attempts || u.backoff || u.dead_max_count || u.dead_max_age;
    if (u.max_attempts) settings_.max_attempts = *u.max_attempts;
    if (u.backoff) settings_.backoff = *u.backoff;
    if (u.dead_max_count) settings_.dead_max_count = *u.dead_max_count;
    if (u.dead_max_age) settings_.dead_max_age = *u.dead_max_age;
    if (changes) note_write();
    return settings_;
}

void QueueModel::set_paused(bool paused) {
    settings_.paused = paused;
    note_write();
}

DeleteResult QueueModel::delete_queue(bool force) {
    DeleteResult out;
    for (const auto& [id, m] : messages_) {
        if (m.place == Place::kPending) ++out.pending;
        if (m.place == Place::kInFlight) ++out.in_flight;
        if (m.place == Place::kDead) ++out.dead;
    }
    if (out.in_flight > 0 && !force) {
        return DeleteResult{.status = DeleteStatus::kInFlight, .in_flight = out.in_flight};
    }
    messages_.clear();
    settings_ = QueueSettings{};
    totals_ = Totals{};
    lateness_ = {};
    lateness_sum_ = 0;
    push_.reset();
    schedules_.clear();
    return out;
}

}  // namespace delayq::model
