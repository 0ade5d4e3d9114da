// The model's push delivery (docs/push.md, docs/design.md "The pusher"): a queue's target, the
// leases a pusher takes within its max_in_flight and rate (a token bucket on the Redis clock),
// and the last answer it records. The pusher's settling is the library's ack and nack.
#include <algorithm>
#include <cmath>
#include <delayq/limits.hpp>

#include "model/model.hpp"
#include "model/units.hpp"

namespace delayq::model {

PushSetStatus QueueModel::push_set(const PushTarget& target) {
    if (push_ && push_->target == target) return PushSetStatus::kUnchanged;
    const bool existed = push_.has_value();
    const std::optional<PushOutcome> last = existed ? push_->last : std::nullopt;
    // A change starts the rate limit from a full bucket, and keeps the last answer.
    push_ = PushState{.target = target,
                      .updated = now_ms(),
                      .tokens = std::nullopt,
                      .tokens_at = 0,
                      .last = last};
    return existed ? PushSetStatus::kUpdated : PushSetStatus::kCreated;
}

bool QueueModel::push_remove() {
    const bool existed = push_.has_value();
    push_.reset();
    return existed;
}

std::optional<PushTargetInfo> QueueModel::push_get() const {
    if (!push_) return std::nullopt;
    const PushTarget& t = push_->target;
    PushTargetInfo info;
    info.url = t.url;
    info.method = t.method;
    info.content_type = t.content_type;
    for (const PushHeader& h : t.headers) info.header_names.push_back(h.name);
    info.request_timeout = t.request_timeout;
    info.max_in_flight = t.max_in_flight;
    info.rate = t.rate;
    info.secrets = t.secrets.size();
    info.updated = at_ms(push_->updated);
    info.last = push_->last;
    return info;
}

bool QueueModel::push_record(int status, const std::string& error) {
    if (!push_) return false;
    push_->last = PushOutcome{.at = at_ms(now_ms()),
                              .status = status,
                              .error = error.substr(0, std::min(error.size(), kMaxErrorBytes))};
    return true;
}

// push_lease.lua, step for step: the doubles of the token bucket round as Lua's do.
Expect<ExpectedPushLease> QueueModel::push_lease(std::size_t max_count) {
    unbound_.clear();
    if (max_count < 1 || max_count > kMaxBatch) return std::nullopt;
    ExpectedPushLease out;
    if (!push_) {
        out.fetch = fetch_due(max_count, 1, [] { return std::size_t{0}; });
        out.has_target = false;
        return out;
    }
    const std::int64_t now = now_ms();
    const PushTarget& target = push_->target;
    const double rate = target.rate;
    std::optional<double> tokens;
    if (rate > 0) {
        const double size = std::max(1.0, rate);
        tokens = push_->tokens
                     ? std::min(size, *push_->tokens +
                                          static_cast<double>(now - push_->tokens_at) * rate / 1000)
                     : size;
    }
    enum class Bound { kNone, kInFlight, kRate };
    Bound bound = Bound::kNone;
    std::size_t before = 0;
    std::size_t limit = max_count;
    const auto in_flight = [this] {
        return static_cast<std::size_t>(std::count_if(
            messages_.begin(), messages_.end(),
            [](const auto& entry) { return entry.second.place == Place::kInFlight; }));
    };
    out.fetch = fetch_due(max_count, ms_of(target.request_timeout) + ms_of(kPushLeaseMargin), [&] {
        before = in_flight();
        const std::size_t room = target.max_in_flight > before ? target.max_in_flight - before : 0;
        if (room < limit) {
            limit = room;
            bound = Bound::kInFlight;
        }
        if (tokens && std::floor(*tokens) < static_cast<double>(limit)) {
            limit = static_cast<std::size_t>(std::floor(*tokens));
            bound = Bound::kRate;
        }
        return limit;
    });
    const auto leased = static_cast<double>(in_flight() - before);
    if (tokens) {
        push_->tokens = *tokens - leased;
        push_->tokens_at = now;
    }
    std::optional<std::int64_t>& next = out.fetch.next;
    if (bound != Bound::kNone && next && *next <= now) {
        out.limited = true;
        std::int64_t room_at = now;
        if (bound == Bound::kRate) {
            room_at =
                now + static_cast<std::int64_t>(std::ceil((1 - (*tokens - leased)) * 1000 / rate));
        } else {
            for (const Entry* m : sorted(Place::kInFlight)) {
                room_at = m->score;
                break;
            }
        }
        if (room_at > *next) next = room_at;
    }
    return out;
}

}  // namespace delayq::model
