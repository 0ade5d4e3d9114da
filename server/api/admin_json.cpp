#include "api/admin_json.hpp"

#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>

#include "api/span_figures.hpp"
#include "json/fields.hpp"
#include "json/message.hpp"
#include "json/queue.hpp"

namespace delayq::server {
namespace {

using json::bool_field;
using json::count_field;
using json::counts_json;
using json::duration_field;
using json::Json;
using json::message_info_json;
using json::number_field;
using json::require_object;
using json::string_field;
using json::unknown_field;

void backoff_fields(const Json& body, QueuePatch& p) {
    if (!body.is_object()) throw InvalidArgument("backoff must be a JSON object");
    for (const auto& [key, v] : body.items()) {
        if (key == "initial") {
            p.backoff_initial = duration_field(v, "backoff.initial");
        } else if (key == "max") {
            p.backoff_max = duration_field(v, "backoff.max");
        } else if (key == "multiplier") {
            p.backoff_multiplier = number_field(v, "backoff.multiplier");
        } else if (key == "jitter") {
            p.backoff_jitter = number_field(v, "backoff.jitter");
        } else {
            throw InvalidArgument("unknown field \"backoff." + key + "\"");
        }
    }
}

}  // namespace

Json queue_list_json(std::span<const QueueCounts> queues) {
    Json list = Json::array();
    for (const auto& q : queues) {
        Json item = counts_json(q.stats);
        item["queue"] = q.queue;
        list.push_back(std::move(item));
    }
    return {{"queues", std::move(list)}};
}

std::size_t parse_query_count(const std::string& name, const std::string& value, std::size_t min,
                              std::size_t max) {
    std::size_t n = 0;
    const bool digits = !value.empty() && value.size() <= 9 &&
                        value.find_first_not_of("0123456789") == std::string::npos;
    if (digits) n = std::stoul(value);
    if (!digits || n < min || n > max) {
        throw InvalidArgument(name + " must be a whole number from " + std::to_string(min) +
                              " to " + std::to_string(max));
    }
    return n;
}

bool parse_page_param(const std::string& key, const std::string& value, PageRequest& page) {
    if (key == "limit") {
        page.limit = parse_query_count(key, value, 1, kMaxBatch);
    } else if (key == "cursor") {
        page.cursor = value;
    } else {
        return false;
    }
    return true;
}

ListQuery parse_list_query(const QueryParams& params) {
    ListQuery q;
    bool has_state = false;
    for (const auto& [key, value] : params) {
        if (key == "state") {
            const auto state = parse_state(value);
            if (!state) {
                throw InvalidArgument("state must be scheduled, ready, in_flight or dead, not \"" +
                                      value + "\"");
            }
            q.state = *state;
            has_state = true;
        } else if (!parse_page_param(key, value, q.page)) {
            throw InvalidArgument("unknown parameter \"" + key + "\"");
        }
    }
    if (!has_state) {
        throw InvalidArgument("give ?state=scheduled, ready, in_flight or dead");
    }
    return q;
}

TimelineQuery parse_timeline_query(const QueryParams& params) {
    TimelineQuery q;
    for (const auto& [key, value] : params) {
        if (key == "bucket") {
            try {
                q.bucket = parse_duration(value);
            } catch (const InvalidArgument& e) {
                throw InvalidArgument(std::string("bucket: ") + e.what());
            }
        } else if (key == "buckets") {
            q.buckets = parse_query_count(key, value, 1, kMaxTimelineBuckets);
        } else {
            throw InvalidArgument("unknown parameter \"" + key + "\"");
        }
    }
    return q;
}

Json overview_queue_json(const std::string& queue, const QueueStats& now,
                         const std::optional<QueueStats>& hour_start, bool recording) {
    Json item = json::counts_json(now);
    item["queue"] = queue;
    item["at_ms"] = json::unix_ms(now.now);
    item["oldest_ready_age_ms"] = now.ready > 0 ? Json(now.oldest_ready_age.count()) : Json();
    item["sent"] = now.totals.sent;
    item["delivered"] = now.totals.delivered;
    item["acked"] = now.totals.acked;
    item["recording"] = recording;
    const auto hour = hour_start ? span_figures(*hour_start, now) : std::nullopt;
    item["hour"] = hour ? span_json(*hour) : Json();
    return item;
}

Json redis_json(const EngineStatus& engine, std::span<const RedisNodeInfo> nodes) {
    Json list = Json::array();
    for (const RedisNodeInfo& n : nodes) {
        list.push_back({{"address", n.address},
                        {"version", n.version},
                        {"used_memory", n.used_memory},
                        {"maxmemory", n.maxmemory},
                        {"maxmemory_policy", n.maxmemory_policy},
                        {"evicts", n.evicts},
                        {"connected_clients", n.connected_clients}});
    }
    return {{"engine", {{"mode", std::string(to_string(engine.mode))}, {"reason", engine.reason}}},
            {"nodes", std::move(list)}};
}

Json message_page_json(const MessagePage& page) {
    Json list = Json::array();
    for (const auto& m : page.messages) list.push_back(message_info_json(m));
    return {{"messages", std::move(list)},
            {"next_cursor", page.next_cursor.empty() ? Json() : Json(page.next_cursor)}};
}

DeadLetterSelector parse_dead_selector(const Json& body) {
    require_object(body, "a dead-letter selection");
    DeadLetterSelector s;
    bool has_ids = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "ids") {
            if (!v.is_array() || v.empty() || v.size() > kMaxBatch) {
                throw InvalidArgument("ids must be a list of 1 to " + std::to_string(kMaxBatch) +
                                      " ids");
            }
            for (std::size_t i = 0; i < v.size(); ++i) {
                s.ids.push_back(string_field(v[i], "ids[" + std::to_string(i) + "]"));
            }
            has_ids = true;
        } else if (key == "all") {
            if (!v.is_boolean() || !v.get<bool>()) {
                throw InvalidArgument("all must be true (or name the ids instead)");
            }
            s.all = true;
        } else {
            unknown_field(key);
        }
    }
    if (has_ids == s.all) throw InvalidArgument("give {\"ids\": [...]} or {\"all\": true}");
    return s;
}

bool QueuePatch::changes_settings() const {
    return max_attempts || backoff_initial || backoff_max || backoff_multiplier || backoff_jitter ||
           dead_max_count || dead_max_age;
}

SettingsUpdate QueuePatch::update(const QueueSettings& current) const {
    SettingsUpdate u;
    u.max_attempts = max_attempts;
    if (backoff_initial || backoff_max || backoff_multiplier || backoff_jitter) {
        Backoff b = current.backoff;
        if (backoff_initial) b.initial = *backoff_initial;
        if (backoff_max) b.max = *backoff_max;
        if (backoff_multiplier) b.multiplier = *backoff_multiplier;
        if (backoff_jitter) b.jitter = *backoff_jitter;
        u.backoff = b;
    }
    u.dead_max_count = dead_max_count;
    u.dead_max_age = dead_max_age;
    return u;
}

QueuePatch parse_queue_patch(const Json& body) {
    require_object(body, "a queue change");
    QueuePatch p;
    for (const auto& [key, v] : body.items()) {
        if (key == "max_attempts") {
            p.max_attempts = static_cast<int>(count_field(v, key, 1, kMaxAttempts));
        } else if (key == "backoff") {
            backoff_fields(v, p);
        } else if (key == "dead_max_count") {
            p.dead_max_count = count_field(v, key, 0, kMaxDeadCount);
        } else if (key == "dead_max_age") {
            p.dead_max_age = duration_field(v, key);
        } else if (key == "paused") {
            p.paused = bool_field(v, key);
        } else {
            unknown_field(key);
        }
    }
    if (!p.changes_settings() && !p.paused) {
        throw InvalidArgument("a queue change names at least one setting, or paused");
    }
    return p;
}

bool parse_force(const QueryParams& params) {
    bool force = false;
    for (const auto& [key, value] : params) {
        if (key != "force") throw InvalidArgument("unknown parameter \"" + key + "\"");
        if (value == "true" || value == "1") {
            force = true;
        } else if (value == "false" || value == "0") {
            force = false;
        } else {
            throw InvalidArgument("force must be true or false");
        }
    }
    return force;
}

}  // namespace delayq::server
