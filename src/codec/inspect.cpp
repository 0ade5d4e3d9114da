#include "codec/inspect.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "validate.hpp"

namespace delayq::detail::inspect_codec {
namespace {

// A message as get.lua and list.lua describe it, after its id (list) or state (get).
enum InfoField : std::size_t {
    kScore,  // due time, lease deadline or dead-letter time, by state
    kAttempts,
    kMaxAttempts,
    kExpireAt,  // 0: never
    kDue,
    kDeadReason,
    kLastError,
    kPayload,
    kInfoFields
};

MessageInfo decode_info(std::string id, State state, const std::vector<Reply>& f,
                        std::size_t first) {
    auto at = [&](InfoField field) -> const Reply& {
        if (first + field >= f.size()) throw ServerError("a message's reply is too short");
        return f[first + field];
    };
    MessageInfo m;
    m.id = std::move(id);
    m.state = state;
    const std::int64_t score = at(kScore).as_int();
    m.attempts = static_cast<int>(at(kAttempts).as_int());
    m.max_attempts = static_cast<int>(at(kMaxAttempts).as_int());
    if (const std::int64_t expire = at(kExpireAt).as_int(); expire > 0) {
        m.expire_at = unix_ms(expire);
    }
    m.due = unix_ms(at(kDue).as_int());
    m.dead_reason = at(kDeadReason).as_string();
    m.last_error = at(kLastError).as_string();
    m.payload = at(kPayload).as_string();
    if (state == State::kInFlight) m.lease_deadline = unix_ms(score);
    if (state == State::kDead) m.dead_at = unix_ms(score);
    return m;
}

// get.lua: {} or {state, message fields}.
constexpr std::size_t kGetState = 0;
constexpr std::size_t kGetInfo = 1;

// list.lua: {now_ms, items, last_score, last_member}; an item is the id, then the fields.
constexpr std::size_t kListItems = 1;
constexpr std::size_t kListLastScore = 2;
constexpr std::size_t kListLastMember = 3;
constexpr std::size_t kItemId = 0;
constexpr std::size_t kItemInfo = 1;
constexpr std::size_t kItemSize = kItemInfo + kInfoFields;

// A cursor is the position of a page's last element: "c1:<score>:<zset member>". The version
// leaves room for cursors over several shards.
constexpr std::string_view kCursorPrefix = "c1:";

std::pair<std::string_view, std::string_view> parse_cursor(std::string_view cursor) {
    auto bad = [] { return InvalidArgument("not a cursor of this queue's listing"); };
    if (!cursor.starts_with(kCursorPrefix)) throw bad();
    cursor.remove_prefix(kCursorPrefix.size());
    const std::size_t colon = cursor.find(':');
    if (colon == 0 || colon == std::string_view::npos || colon + 1 == cursor.size()) throw bad();
    std::string_view score = cursor.substr(0, colon);
    if (score.find_first_not_of("0123456789") != std::string_view::npos) throw bad();
    return {score, cursor.substr(colon + 1)};
}

// stats.lua: {now_ms, scheduled, ready, in_flight, dead, oldest_due_ms, next_future_due_ms,
// totals, lateness}.
enum StatsField : std::size_t {
    kNow,
    kScheduled,
    kReady,
    kInFlight,
    kDead,
    kOldestDue,
    kNextDue,
    kTotals,
    kLateness
};

// A count the scripts send as decimal digits; ServerError for anything else.
std::uint64_t count_text(const std::string& text, const char* what) {
    const std::int64_t n = decimal(text, what);
    if (n < 0) throw ServerError(std::string("stats: a negative ") + what);
    return static_cast<std::uint64_t>(n);
}

// The lateness pairs of stats.lua: the sum, then every bucket's bound and its own count, which
// become Prometheus' cumulative counts.
LatenessHistogram decode_lateness(const Reply& reply) {
    const auto& pairs = reply.as_array();
    if (pairs.size() < 2 || pairs.size() % 2 != 0 || pairs[0].as_string() != "sum_ms") {
        throw ServerError("stats: malformed lateness histogram");
    }
    LatenessHistogram h;
    h.sum = Duration(decimal(pairs[1].as_string(), "lateness sum"));
    for (std::size_t i = 2; i + 1 < pairs.size(); i += 2) {
        const std::string& bound = pairs[i].as_string();
        h.count += count_text(pairs[i + 1].as_string(), "lateness bucket");
        h.buckets.push_back(LatenessHistogram::Bucket{
            bound == "+Inf" ? Duration::max() : Duration(decimal(bound, "lateness bound")),
            h.count});
    }
    return h;
}

}  // namespace

std::optional<MessageInfo> decode_get(const Reply& reply, std::string_view id) {
    const auto& f = reply.as_array();
    if (f.empty()) return std::nullopt;
    auto state = parse_state(reply.at(kGetState).as_string());
    if (!state) throw ServerError("get: unknown state in reply");
    return decode_info(std::string(id), *state, f, kGetInfo);
}

ScriptArgs encode_list(State state, const PageRequest& page) {
    if (page.limit < 1 || page.limit > kMaxBatch) {
        throw InvalidArgument("page limit must be from 1 to " + std::to_string(kMaxBatch));
    }
    ScriptArgs args;
    args.add(to_string(state));
    args.add(static_cast<std::int64_t>(page.limit));
    if (page.cursor.empty()) {
        args.add(std::string_view{});
        args.add(std::string_view{});
    } else {
        const auto [score, member] = parse_cursor(page.cursor);
        args.add(score);
        args.add(member);
    }
    return args;
}

MessagePage decode_list(const Reply& reply, State state) {
    const auto& items = reply.at(kListItems).as_array();
    MessagePage out;
    for (std::size_t i = 0; i + kItemSize <= items.size(); i += kItemSize) {
        out.messages.push_back(
            decode_info(items[i + kItemId].as_string(), state, items, i + kItemInfo));
    }
    const std::string& score = reply.at(kListLastScore).as_string();
    if (!score.empty()) {
        out.next_cursor.append(kCursorPrefix)
            .append(score)
            .append(":")
            .append(reply.at(kListLastMember).as_string());
    }
    return out;
}

QueueStats decode_stats(const Reply& reply) {
    QueueStats s;
    s.now = unix_ms(reply.at(kNow).as_int());
    s.scheduled = static_cast<std::size_t>(reply.at(kScheduled).as_int());
    s.ready = static_cast<std::size_t>(reply.at(kReady).as_int());
    s.in_flight = static_cast<std::size_t>(reply.at(kInFlight).as_int());
    s.dead = static_cast<std::size_t>(reply.at(kDead).as_int());
    s.oldest_due = optional_unix_ms(reply.at(kOldestDue).as_int());
    s.next_due = optional_unix_ms(reply.at(kNextDue).as_int());
    if (s.oldest_due && *s.oldest_due <= s.now) s.oldest_ready_age = s.now - *s.oldest_due;
    s.oldest_overdue_age = s.oldest_ready_age;  // the deprecated name, until it is removed
    struct Field {
        std::string_view name;
        std::uint64_t Totals::*member;
    };
    static constexpr Field kFields[] = {
        {"sent", &Totals::sent},
        {"delivered", &Totals::delivered},
        {"acked", &Totals::acked},
        {"retried", &Totals::retried},
        {"dead_lettered", &Totals::dead_lettered},
        {"expired", &Totals::expired},
        {"cancelled", &Totals::cancelled},
        {"released", &Totals::released},
        {"requeued", &Totals::requeued},
        {"purged", &Totals::purged},
        {"dead_trimmed", &Totals::dead_trimmed},
        {"orphans_removed", &Totals::orphans_removed},
        {"schedule_fired", &Totals::schedule_fired},
        {"schedule_missed", &Totals::schedule_missed},
        {"schedule_skipped", &Totals::schedule_skipped},
    };
    const auto& t = reply.at(kTotals).as_array();
    for (std::size_t i = 0; i + 1 < t.size(); i += 2) {
        for (const auto& f : kFields) {
            if (t[i].as_string() == f.name) {
                s.totals.*f.member = count_text(t[i + 1].as_string(), "a total");
            }
        }
    }
    s.lateness = decode_lateness(reply.at(kLateness));
    return s;
}

bool decode_record_history(const Reply& reply) { return reply.at(0).as_int() == 1; }

ScriptArgs encode_history(TimePoint since, std::size_t limit) {
    if (limit < 1 || limit > kMaxBatch) {
        throw InvalidArgument("history limit must be from 1 to " + std::to_string(kMaxBatch));
    }
    ScriptArgs args;
    args.add(validate_time(since, "history since"));
    args.add(static_cast<std::int64_t>(limit));
    return args;
}

std::vector<QueueStats> decode_history(const Reply& reply) {
    std::vector<QueueStats> points;
    const auto& all = reply.as_array();
    for (std::size_t i = 1; i < all.size(); ++i) points.push_back(decode_stats(all[i]));
    return points;
}

ScriptArgs encode_timeline(Duration bucket, std::size_t buckets) {
    if (bucket < Duration(1)) throw InvalidArgument("timeline bucket must be at least 1 ms");
    if (buckets < 1 || buckets > kMaxTimelineBuckets) {
        throw InvalidArgument("timeline buckets must be from 1 to " +
                              std::to_string(kMaxTimelineBuckets));
    }
    if (bucket.count() > kMaxTimeMs / static_cast<std::int64_t>(buckets)) {
        throw InvalidArgument("timeline reaches past the year 9999");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(bucket.count()));
    args.add(static_cast<std::int64_t>(buckets));
    return args;
}

Timeline decode_timeline(const Reply& reply, Duration bucket) {
    constexpr std::size_t kFirstBucket = 3;
    Timeline t;
    t.now = unix_ms(reply.at(0).as_int());
    t.bucket = bucket;
    t.ready = static_cast<std::size_t>(reply.at(1).as_int());
    t.later = static_cast<std::size_t>(reply.at(2).as_int());
    const auto& all = reply.as_array();
    for (std::size_t i = kFirstBucket; i < all.size(); ++i) {
        t.counts.push_back(static_cast<std::size_t>(all[i].as_int()));
    }
    return t;
}

}  // namespace delayq::detail::inspect_codec
