// The model's recurring schedules (docs/design.md, Schedules; delayq/schedules.hpp): upsert and
// add, pause, resume, remove, trigger, and a scheduler's claims with their catch-up and overlap
// policies. The occurrences are plain arithmetic here, so that the model does not borrow the
// library's cron or zones: `every` specs, and cron specs of a fixed period in zones without
// daylight saving (cron_cases).
#include <algorithm>
#include <delayq/limits.hpp>
#include <stdexcept>

#include "model/model.hpp"
#include "model/units.hpp"

namespace delayq::model {
namespace {

// The most missed occurrences a claim walks, and so counts in `missed`, before it jumps to the
// newest ones (kMissedScanLimit in src/schedule/claim_plan.hpp, a documented bound on a claim's
// work).
constexpr std::size_t kMissedScanLimit = 1'000'000;

std::string occurrence_id(const std::string& name, std::int64_t instant) {
    return "schedule:" + name + ":" + std::to_string(instant);
}

}  // namespace

const std::vector<CronCase>& cron_cases() {
    constexpr std::int64_t kSecond = 1000;
    constexpr std::int64_t kMinute = 60 * kSecond;
    constexpr std::int64_t kHour = 60 * kMinute;
    static const std::vector<CronCase> cases = {
        {"*/10 * * * * *", "UTC", 10 * kSecond, 0},
        {"15 * * * * *", "UTC", kMinute, 15 * kSecond},
        {"0 */5 * * * *", "UTC", 5 * kMinute, 0},
        // Minute 0 at +05:30 is minute 30 in UTC.
        {"@hourly", "Asia/Kolkata", kHour, 30 * kMinute},
        // Minute 45 at +05:45 is minute 0 in UTC.
        {"45 * * * *", "Asia/Kathmandu", kHour, 0},
        // 02:30 at +05:45 is 20:45 UTC the day before.
        {"30 2 * * *", "Asia/Kathmandu", 24 * kHour, 20 * kHour + 45 * kMinute},
        // Etc/GMT+5 is UTC-5 (POSIX signs): midnight there is 05:00 UTC.
        {"0 0 * * *", "Etc/GMT+5", 24 * kHour, 5 * kHour},
    };
    return cases;
}

namespace {

// The instants of a spec: phase + k * period, from `first` on.
struct Cadence {
    std::int64_t period = 0;
    std::int64_t phase = 0;
    std::int64_t first = 0;
};

Cadence cadence_of(const ScheduleState& s) {
    if (s.spec.cron.empty()) {
        // anchor + k * every: from k = 0 when the anchor is `start`, from k = 1 when it is the
        // first upsert's time.
        const std::int64_t every = ms_of(s.spec.every);
        const std::int64_t anchor = s.spec.start ? ms_of(*s.spec.start) : s.anchor;
        return {every, anchor, s.spec.start ? anchor : anchor + every};
    }
    for (const CronCase& c : cron_cases()) {
        if (c.cron == s.spec.cron && c.tz == s.spec.tz) {
            return {c.period_ms, c.phase_ms, s.spec.start ? ms_of(*s.spec.start) : 0};
        }
    }
    throw std::logic_error("the model has no cadence for cron " + s.spec.cron);
}

}  // namespace

// None past `end` or the year 9999. (The library's Recurrence also starts no earlier than
// 1970, which no spec here comes near.)
std::optional<std::int64_t> QueueModel::occurrence_after(const ScheduleState& s,
                                                         std::int64_t t) const {
    const Cadence c = cadence_of(s);
    const std::int64_t from = std::max(t, c.first - 1);
    // The smallest phase + k * period above `from` (all times here are after 1970).
    const std::int64_t next = from - ((from - c.phase) % c.period + c.period) % c.period + c.period;
    if (next > kMaxTimeMs || (s.spec.end && next > ms_of(*s.spec.end))) return std::nullopt;
    return next;
}

bool QueueModel::send_occurrence(const ScheduleState& s, const std::string& id, std::int64_t due) {
    if (messages_.contains(id)) return false;
    add_pending(id, due, s.spec.max_attempts,
                s.spec.expire_after.count() > 0 ? due + ms_of(s.spec.expire_after) : 0,
                s.spec.payload);
    ++totals_.sent;
    return true;
}

// Only while it is still scheduled: one already due runs under the spec it was sent with.
void QueueModel::cancel_ahead(const ScheduleState& s) {
    if (s.ahead_id.empty() || s.ahead <= now_ms()) return;
    const auto it = messages_.find(s.ahead_id);
    if (it == messages_.end() || it->second.place != Place::kPending ||
        it->second.score <= now_ms()) {
        return;
    }
    messages_.erase(it);
    ++totals_.cancelled;
}

std::optional<std::int64_t> QueueModel::claim_at(const ScheduleState& s) const {
    if (s.paused || s.next < 0) return std::nullopt;
    if (s.spec.overlap == Overlap::kAllow && s.ahead >= 0 && s.ahead < s.next) return s.ahead;
    return s.next;
}

std::optional<PutResult> QueueModel::schedule_put(PutMode mode, const std::string& name,
                                                  const ScheduleSpec* spec) {
    const std::int64_t now = now_ms();
    const auto next_due = [now](const ScheduleState& s) -> std::optional<TimePoint> {
        if (s.paused) return std::nullopt;
        if (s.ahead > now) return at_ms(s.ahead);
        if (s.next < 0) return std::nullopt;
        return at_ms(s.next);
    };
    const auto it = schedules_.find(name);
    const bool stored = it != schedules_.end();
    if (mode == PutMode::kAdd && stored) return PutResult{PutStatus::kExists, next_due(it->second)};
    if (mode == PutMode::kResume && !stored) return std::nullopt;
    if (mode == PutMode::kUpsert && stored && it->second.spec == *spec) {
        return PutResult{PutStatus::kUnchanged, next_due(it->second)};
    }
    if (mode == PutMode::kResume && !it->second.paused) {
        return PutResult{PutStatus::kUnchanged, next_due(it->second)};
    }
    PutStatus status = PutStatus::kCreated;
    ScheduleState* s = nullptr;
    if (stored) {
        status = PutStatus::kUpdated;
        s = &it->second;
        cancel_ahead(*s);
        if (spec != nullptr) s->spec = *spec;
        s->updated = now;
        if (mode == PutMode::kResume) s->paused = false;
    } else {
        ScheduleState fresh;
        fresh.spec = *spec;
        fresh.anchor = now;  // the first upsert's time, kept; `start` overrides it
        fresh.created = now;
        fresh.updated = now;
        s = &schedules_.emplace(name, std::move(fresh)).first->second;
    }
    // A paused schedule stays paused through a changed spec.
    const std::optional<std::int64_t> first = occurrence_after(*s, now);
    const std::optional<std::int64_t> then = first ? occurrence_after(*s, *first) : std::nullopt;
    const auto ended = [&] { return s->spec.max_runs > 0 && s->runs >= s->spec.max_runs; };
    s->next = first.value_or(-1);
    if (ended()) s->next = -1;
    if (!s->paused && s->next >= 0 && s->spec.overlap == Overlap::kAllow) {
        const std::string id = occurrence_id(name, *first);
        if (send_occurrence(*s, id, *first)) {
            s->prev = s->ahead;
            s->prev_id = s->ahead_id;
            s->ahead = *first;
            s->ahead_id = id;
            ++s->runs;
            ++totals_.schedule_fired;
        }
        s->next = then.value_or(-1);
        if (ended()) s->next = -1;
    }
    return PutResult{status, next_due(*s)};
}

bool QueueModel::schedule_pause(const std::string& name) {
    const auto it = schedules_.find(name);
    if (it == schedules_.end()) return false;
    cancel_ahead(it->second);
    if (!it->second.paused) {
        it->second.paused = true;
        it->second.updated = now_ms();
    }
    return true;
}

bool QueueModel::schedule_remove(const std::string& name) {
    const auto it = schedules_.find(name);
    if (it == schedules_.end()) return false;
    cancel_ahead(it->second);
    schedules_.erase(it);
    return true;
}

std::optional<TriggerResult> QueueModel::schedule_trigger(const std::string& name) {
    const auto it = schedules_.find(name);
    if (it == schedules_.end()) return std::nullopt;
    const std::string id = occurrence_id(name, now_ms());
    send_occurrence(it->second, id, now_ms());  // not counted as a run; a duplicate sends nothing
    return TriggerResult{id, at_ms(now_ms())};
}

std::optional<ScheduleInfo> QueueModel::schedule_get(const std::string& name) const {
    const auto it = schedules_.find(name);
    if (it == schedules_.end()) return std::nullopt;
    const ScheduleState& s = it->second;
    const std::int64_t now = now_ms();
    ScheduleInfo info;
    info.name = name;
    info.spec = s.spec;
    info.paused = s.paused;
    info.anchor = at_ms(s.anchor);
    info.created = at_ms(s.created);
    info.updated = at_ms(s.updated);
    if (!s.paused && s.ahead > now) {
        info.next = at_ms(s.ahead);
    } else if (!s.paused && s.next >= 0) {
        info.next = at_ms(s.next);
    }
    // The last occurrence that fell due: the one sent ahead once its instant passed.
    std::int64_t last = s.prev;
    std::string last_id = s.prev_id;
    if (s.ahead >= 0 && s.ahead <= now) {
        last = s.ahead;
        last_id = s.ahead_id;
    }
    if (last >= 0) info.last_fired = at_ms(last);
    info.last_id = last_id;
    if (last_id.empty()) {
        info.last_outcome = LastOutcome::kNone;
    } else if (const auto m = messages_.find(last_id); m == messages_.end()) {
        info.last_outcome = LastOutcome::kGone;
    } else if (m->second.place == Place::kInFlight) {
        info.last_outcome = LastOutcome::kInFlight;
    } else if (m->second.place == Place::kPending) {
        info.last_outcome = LastOutcome::kPending;
    } else {
        info.last_outcome = LastOutcome::kDead;
        info.last_dead_reason = m->second.reason;
    }
    info.runs = s.runs;
    info.missed = s.missed;
    info.skipped = s.skipped;
    return info;
}

// plan_claim (the scheduler's) and schedule_claim.lua.
void QueueModel::claim(const std::string& name, ScheduleState& s, ClaimCounts& counts) {
    const std::int64_t now = now_ms();
    std::size_t keep = 0;
    if (s.spec.catch_up == CatchUp::kOne) keep = 1;
    if (s.spec.catch_up == CatchUp::kAll) keep = kMaxCatchUp;
    const std::int64_t missed_before = now - ms_of(kScheduleGrace);
    // Missed: s.next + k * period (s.next is an occurrence: occurrence_after set it) before
    // missed_before, and none past the end. The newest `keep` are sent and the others counted,
    // but only as far as the scheduler walks them (kMissedScanLimit): those its claim jumps over
    // to reach the newest are not.
    std::vector<std::int64_t> instants;
    std::uint64_t missed = 0;
    std::optional<std::int64_t> t = s.next;
    if (s.next < missed_before) {
        const std::int64_t period = cadence_of(s).period;
        std::int64_t bound = std::min(missed_before - 1, kMaxTimeMs);
        if (s.spec.end) bound = std::min(bound, ms_of(*s.spec.end));
        const auto count = static_cast<std::uint64_t>((bound - s.next) / period + 1);
        const std::int64_t newest = s.next + static_cast<std::int64_t>(count - 1) * period;
        const std::uint64_t sent = std::min<std::uint64_t>(count, keep);
        for (std::uint64_t k = sent; k > 0; --k) {
            instants.push_back(newest - static_cast<std::int64_t>(k - 1) * period);
        }
        missed = std::min<std::uint64_t>(count - sent, kMissedScanLimit);
        t = occurrence_after(s, newest);
    }
    while (t && *t <= now) {
        instants.push_back(*t);
        t = occurrence_after(s, *t);
    }
    if (s.spec.overlap == Overlap::kAllow && t) {
        instants.push_back(*t);
        t = occurrence_after(s, *t);
    }
    std::int64_t after = t.value_or(-1);

    bool busy = false;
    if (s.spec.overlap == Overlap::kSkip && !s.ahead_id.empty()) {
        const auto m = messages_.find(s.ahead_id);
        busy = m != messages_.end() && m->second.place != Place::kDead;
    }
    const auto ended = [&] { return s.spec.max_runs > 0 && s.runs >= s.spec.max_runs; };
    std::uint64_t sent = 0;
    std::uint64_t skipped = 0;
    for (const std::int64_t instant : instants) {
        if (busy || ended()) {
            ++skipped;
            continue;
        }
        const std::string id = occurrence_id(name, instant);
        if (send_occurrence(s, id, instant)) {
            s.prev = s.ahead;
            s.prev_id = s.ahead_id;
            s.ahead = instant;
            s.ahead_id = id;
            ++s.runs;
            ++sent;
        }
    }
    // Instants past max_runs are the schedule's end, not skips.
    if (!busy && ended()) {
        skipped = 0;
        after = -1;
    }
    s.next = after;
    s.missed += missed;
    s.skipped += skipped;
    totals_.schedule_fired += sent;
    totals_.schedule_missed += missed;
    totals_.schedule_skipped += skipped;
    ++counts.claims;
    counts.fired += sent;
    counts.missed += missed;
    counts.skipped += skipped;
}

ClaimCounts QueueModel::schedule_claims() {
    ClaimCounts counts;
    for (;;) {
        // One read: the schedules whose claim is due, by claim time, then name.
        std::vector<std::pair<std::int64_t, std::string>> due;
        for (const auto& [name, s] : schedules_) {
            if (const auto at = claim_at(s); at && *at <= now_ms()) due.emplace_back(*at, name);
        }
        if (due.empty()) return counts;
        std::sort(due.begin(), due.end());
        for (const auto& [at, name] : due) claim(name, schedules_.at(name), counts);
    }
}

}  // namespace delayq::model
