#include "model/model.hpp"

#include <algorithm>
#include <cmath>
#include <delayq/limits.hpp>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "model/units.hpp"

namespace delayq::model {
namespace {

constexpr std::size_t kSeqLen = 14;

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

bool is_generated_form(const std::string& id) {
    return id.size() == kSeqLen && std::all_of(id.begin(), id.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// The due time and expiry the send script computes for valid options.
std::pair<std::int64_t, std::int64_t> due_and_expire(const SendOptions& o, std::int64_t now) {
    const std::int64_t due = o.at ? ms_of(*o.at) : now + ms_of(o.delay);
    const std::int64_t expire = o.expire_after.count() > 0 ? now + ms_of(o.expire_after) : 0;
    return {due, expire};
}

}  // namespace

bool valid_backoff(const Backoff& b) {
    return b.initial.count() >= 0 && b.max >= b.initial && b.multiplier >= 1.0 &&
           b.multiplier <= kMaxBackoffMultiplier && b.jitter >= 0.0 && b.jitter <= 1.0 &&
           valid_delay(b.max);
}

const std::array<Duration, kLatenessBuckets>& lateness_bounds() {
    using std::chrono::milliseconds;
    static constexpr std::array<Duration, kLatenessBuckets> kBounds = {
        milliseconds(0),      milliseconds(1),       milliseconds(2),     milliseconds(5),
        milliseconds(10),     milliseconds(25),      milliseconds(50),    milliseconds(100),
        milliseconds(250),    milliseconds(500),     milliseconds(1000),  milliseconds(2500),
        milliseconds(5000),   milliseconds(10000),   milliseconds(30000), milliseconds(60000),
        milliseconds(300000), milliseconds(1800000), Duration::max()};
    return kBounds;
}

bool valid_id(const std::string& id) {
    if (id.empty() || id.size() > kMaxNameBytes) return false;
    return std::all_of(id.begin(), id.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c >= 0x20 && c < 0x7f && c != '{' && c != '}';
    });
}

bool valid_caller_id(const std::string& id) { return valid_id(id) && !is_generated_form(id); }

bool valid_send(const delayq::Message& m, const QueueOptions& options) {
    const SendOptions& o = m.options;
    if (m.payload.size() > options.max_payload_bytes) return false;
    if (o.id && !valid_caller_id(*o.id)) return false;
    if (o.at && o.delay.count() != 0) return false;
    if (!valid_delay(o.delay) || (o.at && !valid_time(*o.at))) return false;
    if (o.max_attempts < 0 || o.max_attempts > delayq::kMaxAttempts) return false;
    if (!valid_delay(o.expire_after)) return false;
    return !(o.expire_after.count() > 0 && !o.at && o.expire_after <= o.delay);
}

std::optional<Lease> parse_lease_text(const std::string& text) {
    if (text.size() <= kSeqLen || !is_generated_form(text.substr(0, kSeqLen))) return std::nullopt;
    const std::uint64_t token = std::stoull(text.substr(0, kSeqLen), nullptr, 16);
    const std::string id = text.substr(kSeqLen);
    if (token == 0 || !valid_id(id)) return std::nullopt;
    return Lease(id, token);
}

QueueModel::QueueModel(std::string name) : name_(std::move(name)) {}

void QueueModel::set_now_us(std::int64_t now_us) {
    if (now_us < now_us_) throw std::logic_error("the model's clock went backwards");
    now_us_ = now_us;
}

bool script_refuses(const SendOptions& options, std::int64_t now_ms) {
    const auto [due, expire] = due_and_expire(options, now_ms);
    return due > kMaxTimeMs || (expire > 0 && expire <= due);
}

bool QueueModel::script_refuses(const SendOptions& options) const {
    return model::script_refuses(options, now_ms());
}

Expect<std::vector<SendResult>> QueueModel::send(std::span<const delayq::Message> batch,
                                                 const QueueOptions& options) {
    unnamed_.clear();
    if (batch.empty()) return std::vector<SendResult>{};
    if (batch.size() > kMaxBatch) return std::nullopt;
    for (const delayq::Message& m : batch) {
        if (!valid_send(m, options)) return std::nullopt;
    }
    // The script checks every message against its clock before it writes anything.
    for (const delayq::Message& m : batch) {
        if (script_refuses(m.options)) return std::nullopt;
    }
    std::vector<SendResult> out;
    std::size_t created = 0;
    for (const delayq::Message& m : batch) {
        const auto [due, expire] = due_and_expire(m.options, now_ms());
        std::string id;
        if (m.options.id) {
            id = *m.options.id;
            if (const auto it = messages_.find(id); it != messages_.end()) {
                // A duplicate reports the due time the holder has now.
                const Entry& e = it->second;
                out.push_back({id, true, at_ms(e.place == Place::kPending ? e.score : e.due)});
                continue;
            }
        } else {
            id = "?generated-" + std::to_string(++placeholder_);
            unnamed_.push_back(id);
        }
        add_pending(id, due, m.options.max_attempts, expire, m.payload);
        ++created;
        out.push_back({m.options.id ? id : std::string(), false, at_ms(due)});
    }
    if (created > 0) {
        totals_.sent += created;
        note_write();
    }
    return out;
}

void QueueModel::add_pending(const std::string& id, std::int64_t due, int max_attempts,
                             std::int64_t expire, const std::string& payload) {
    Entry e;
    e.id = id;
    e.order = next_order_++;
    e.score = due;
    e.due = due;
    e.max_attempts = max_attempts;
    e.expire = expire;
    e.payload = payload;
    messages_.emplace(id, std::move(e));
}

std::string QueueModel::name_generated(const std::vector<SendResult>& actual) {
    std::vector<std::string> ids;
    for (const SendResult& r : actual) {
        if (!r.duplicate && !r.id.empty() && !messages_.contains(r.id) && is_generated_form(r.id)) {
            ids.push_back(r.id);
        }
    }
    std::string wrong;
    if (ids.size() != unnamed_.size()) {
        wrong = "expected " + std::to_string(unnamed_.size()) + " new generated ids, got " +
                std::to_string(ids.size());
    }
    for (std::size_t i = 0; i < std::min(ids.size(), unnamed_.size()); ++i) {
        auto node = messages_.extract(unnamed_[i]);
        if (node.empty()) continue;
        node.key() = ids[i];
        node.mapped().id = ids[i];
        messages_.insert(std::move(node));
    }
    unnamed_.clear();
    return wrong;
}

Expect<CancelResult> QueueModel::cancel(const std::string& id) {
    if (!valid_id(id)) return std::nullopt;
    const auto it = messages_.find(id);
    if (it == messages_.end()) return CancelResult::kNotFound;
    if (it->second.place == Place::kInFlight) return CancelResult::kInFlight;
    if (it->second.place == Place::kDead) return CancelResult::kDead;
    messages_.erase(it);
    ++totals_.cancelled;
    return CancelResult::kCancelled;
}

Expect<RescheduleResult> QueueModel::reschedule(const std::string& id, Duration delay) {
    if (!valid_delay(delay)) return std::nullopt;
    return reschedule_at(id, at_ms(now_ms() + ms_of(delay)));
}

Expect<RescheduleResult> QueueModel::reschedule_at(const std::string& id, TimePoint at) {
    // A due time past the year 9999 is refused before the message is looked up.
    if (!valid_id(id) || ms_of(at) < 0 || ms_of(at) > kMaxTimeMs) return std::nullopt;
    const auto it = messages_.find(id);
    if (it == messages_.end()) return RescheduleResult{RescheduleStatus::kNotFound, at_ms(0)};
    Entry& m = it->second;
    if (m.place == Place::kInFlight) return RescheduleResult{RescheduleStatus::kInFlight, at_ms(0)};
    if (m.place == Place::kDead) return RescheduleResult{RescheduleStatus::kDead, at_ms(0)};
    std::int64_t due = ms_of(at);
    if (m.expire > 0 && due > m.expire) due = m.expire;
    m.score = due;
    m.due = due;
    return RescheduleResult{RescheduleStatus::kRescheduled, at_ms(due)};
}

bool QueueModel::listed() const {
    const Totals& t = totals_;
    return t.sent + t.delivered + t.acked + t.retried + t.dead_lettered + t.expired + t.cancelled +
               t.released + t.requeued + t.purged + t.dead_trimmed + t.orphans_removed >
           0;
}

std::vector<QueueModel::Instant> QueueModel::instants() const {
    std::vector<Instant> out;
    const std::int64_t age = settings_.dead_max_age.count();
    for (const auto& [id, m] : messages_) {
        if (m.place != Place::kDead) out.push_back({m.score, id});
        if (m.place == Place::kDead && age > 0) out.push_back({m.score + age, id});
        // Thrice: an expiry is met only by the operation right at it, so it is worth more tries.
        if (m.expire > 0) out.insert(out.end(), 3, Instant{m.expire, id});
    }
    for (const auto& [name, s] : schedules_) {
        if (const auto at = claim_at(s)) out.push_back({*at, name});
    }
    std::erase_if(out, [&](const Instant& i) { return i.ms <= now_ms() || i.ms > kMaxTimeMs; });
    return out;
}

std::vector<Lease> QueueModel::held_leases() const {
    std::vector<Lease> out;
    for (const Entry* m : sorted(Place::kInFlight)) {
        if (m->token != 0) out.emplace_back(m->id, m->token);
    }
    return out;
}

const Entry* QueueModel::held(const Lease& lease) const {
    const auto it = messages_.find(lease.id());
    if (it == messages_.end() || it->second.place != Place::kInFlight) return nullptr;
    if (lease.token() == 0 || it->second.token != lease.token()) return nullptr;
    return &it->second;
}

Entry* QueueModel::held(const Lease& lease) {
    return const_cast<Entry*>(std::as_const(*this).held(lease));
}

int QueueModel::max_of(const Entry& m) const {
    return m.max_attempts == 0 ? settings_.max_attempts : m.max_attempts;
}

// backoff_ms in src/lua/lib/settings.lua, operation for operation, so that the doubles round
// alike: initial x multiplier^(attempts - 1), capped, spread by +-jitter with the clock's
// microseconds as the random number.
std::int64_t QueueModel::backoff_ms(int attempts) const {
    const Backoff& b = settings_.backoff;
    const auto initial = static_cast<double>(b.initial.count());
    const auto max = static_cast<double>(b.max.count());
    const double base = std::min(
        initial * std::pow(b.multiplier, static_cast<double>(std::max(attempts, 1) - 1)), max);
    const auto micros = static_cast<double>(now_us_ % kMicrosPerSecond);
    const double spread = 1 + b.jitter * (2 * micros / 1000000 - 1);
    const double delay = std::max(0.0, std::min(std::floor(base * spread + 0.5), max));
    return static_cast<std::int64_t>(delay);
}

std::vector<Entry*> QueueModel::sorted(Place place) {
    std::vector<Entry*> out;
    for (auto& [id, m] : messages_) {
        if (m.place == place) out.push_back(&m);
    }
    // In flight the member is the token, then the id; elsewhere the send's sequence key.
    std::sort(out.begin(), out.end(), [place](const Entry* a, const Entry* b) {
        if (place == Place::kInFlight) {
            return std::tie(a->score, a->token) < std::tie(b->score, b->token);
        }
        return std::tie(a->score, a->order) < std::tie(b->score, b->order);
    });
    return out;
}

std::vector<const Entry*> QueueModel::sorted(Place place) const {
    const auto all = const_cast<QueueModel*>(this)->sorted(place);
    return std::vector<const Entry*>(all.begin(), all.end());
}

void QueueModel::bury(Entry& m, const std::string& reason, const std::optional<std::string>& error,
                      std::vector<DeadLetterEvent>* events) {
    m.place = Place::kDead;
    m.token = 0;
    m.score = now_ms();
    m.reason = reason;
    if (error) m.last_error = error;
    ++totals_.dead_lettered;
    if (reason == "expired") ++totals_.expired;
    if (events != nullptr) events->push_back({name_, m.id, reason, m.attempts});
}

void QueueModel::retry(Entry& m, std::int64_t due, std::string error) {
    m.place = Place::kPending;
    m.token = 0;
    m.score = due;
    m.due = due;
    m.last_error = std::move(error);
    ++totals_.retried;
}

// Retention: first the dead letters older than the age bound; when there are none, the oldest
// beyond the count bound; at most kTrimLimit a call.
void QueueModel::trim_dead() {
    const auto dead = sorted(Place::kDead);
    if (dead.empty()) return;
    std::vector<std::string> victims;
    if (settings_.dead_max_age.count() > 0) {
        const std::int64_t cutoff = now_ms() - settings_.dead_max_age.count();
        for (const Entry* m : dead) {
            if (m->score > cutoff || victims.size() == kTrimLimit) break;
            victims.push_back(m->id);
        }
    }
    if (victims.empty() && settings_.dead_max_count > 0 && dead.size() > settings_.dead_max_count) {
        const std::size_t excess = std::min(dead.size() - settings_.dead_max_count, kTrimLimit);
        for (std::size_t i = 0; i < excess; ++i) victims.push_back(dead[i]->id);
    }
    for (const std::string& id : victims) messages_.erase(id);
    totals_.dead_trimmed += victims.size();
}

void QueueModel::count_lateness(std::int64_t late_ms) {
    std::size_t b = 0;
    while (b + 1 < kLatenessBuckets && late_ms > lateness_bounds()[b].count()) ++b;
    ++lateness_[b];
    lateness_sum_ += late_ms;
}

Expect<std::vector<Entry*>> QueueModel::select_dead(const DeadLetterSelector& which) {
    if (which.all && !which.ids.empty()) return std::nullopt;
    for (const std::string& id : which.ids) {
        if (!valid_id(id)) return std::nullopt;
    }
    if (which.all) return sorted(Place::kDead);
    std::vector<Entry*> out;
    std::set<std::string> seen;
    for (const std::string& id : which.ids) {
        const auto it = messages_.find(id);
        if (it != messages_.end() && it->second.place == Place::kDead && seen.insert(id).second) {
            out.push_back(&it->second);
        }
    }
    return out;
}

MessageInfo QueueModel::info(const Entry& m) const {
    MessageInfo i;
    i.id = m.id;
    i.attempts = m.attempts;
    i.max_attempts = max_of(m);
    if (m.expire > 0) i.expire_at = at_ms(m.expire);
    i.dead_reason = m.reason;
    i.last_error = m.last_error.value_or("");
    i.payload = m.payload;
    i.due = at_ms(m.due);
    switch (m.place) {
        case Place::kPending:
            i.state = m.score <= now_ms() ? State::kReady : State::kScheduled;
            i.due = at_ms(m.score);
            break;
        case Place::kInFlight:
            i.state = State::kInFlight;
            i.lease_deadline = at_ms(m.score);
            break;
        case Place::kDead:
            i.state = State::kDead;
            i.dead_at = at_ms(m.score);
            break;
    }
    return i;
}

// The queue's first write records its layout version.
void QueueModel::note_write() {
    if (settings_.layout == 0) settings_.layout = 2;
}

}  // namespace delayq::model
