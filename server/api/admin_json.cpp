#include "api/admin_json.hpp"

#include <delayq/error.hpp>
#include <limits>

#include "api/json_fields.hpp"
#include "api/messages_json.hpp"

namespace delayq::server {
namespace {

using nlohmann::json;

json optional_ms(const std::optional<TimePoint>& t) { return t ? json(unix_ms(*t)) : json(); }

json counts_json(const QueueStats& s) {
    return {{"scheduled", s.scheduled},
            {"ready", s.ready},
            {"in_flight", s.in_flight},
            {"dead", s.dead}};
}

json totals_json(const Totals& t) {
    return {{"sent", t.sent},
            {"delivered", t.delivered},
            {"acked", t.acked},
            {"retried", t.retried},
            {"dead_lettered", t.dead_lettered},
            {"expired", t.expired},
            {"cancelled", t.cancelled},
            {"released", t.released},
            {"requeued", t.requeued},
            {"purged", t.purged},
            {"dead_trimmed", t.dead_trimmed},
            {"orphans_removed", t.orphans_removed}};
}

double number_field(const json& v, const std::string& name) {
    if (!v.is_number()) throw InvalidArgument(name + " must be a number");
    return v.get<double>();
}

void backoff_fields(const json& body, QueuePatch& p) {
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

json queue_list_json(std::span<const QueueCounts> queues) {
    json list = json::array();
    for (const auto& q : queues) {
        json item = counts_json(q.stats);
        item["queue"] = q.queue;
        list.push_back(std::move(item));
    }
    return {{"queues", std::move(list)}};
}

json settings_json(const QueueSettings& s) {
    return {{"paused", s.paused},
            {"max_attempts", s.max_attempts},
            {"backoff",
             {{"initial_ms", s.backoff.initial.count()},
              {"max_ms", s.backoff.max.count()},
              {"multiplier", s.backoff.multiplier},
              {"jitter", s.backoff.jitter}}},
            {"dead_max_count", s.dead_max_count},
            {"dead_max_age_ms", s.dead_max_age.count()},
            {"layout", s.layout}};
}

json queue_json(const std::string& queue, const QueueStats& s, const QueueSettings& settings) {
    json stats = counts_json(s);
    stats["now_ms"] = unix_ms(s.now);
    stats["next_due_ms"] = optional_ms(s.next_due);
    stats["oldest_due_ms"] = optional_ms(s.oldest_due);
    stats["oldest_ready_age_ms"] = s.oldest_overdue_age.count();
    return {{"queue", queue},
            {"stats", std::move(stats)},
            {"totals", totals_json(s.totals)},
            {"settings", settings_json(settings)}};
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
        } else if (key == "limit") {
            std::size_t n = 0;
            const bool digits = !value.empty() && value.size() <= 4 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            if (digits) n = std::stoul(value);
            if (!digits || n < 1 || n > 1000) {
                throw InvalidArgument("limit must be a whole number from 1 to 1000");
            }
            q.page.limit = n;
        } else if (key == "cursor") {
            q.page.cursor = value;
        } else {
            throw InvalidArgument("unknown parameter \"" + key + "\"");
        }
    }
    if (!has_state) {
        throw InvalidArgument("give ?state=scheduled, ready, in_flight or dead");
    }
    return q;
}

json message_page_json(const MessagePage& page) {
    json list = json::array();
    for (const auto& m : page.messages) list.push_back(message_info_json(m));
    return {{"messages", std::move(list)},
            {"next_cursor", page.next_cursor.empty() ? json() : json(page.next_cursor)}};
}

DeadLetterSelector parse_dead_selector(const json& body) {
    require_object(body, "a dead-letter selection");
    DeadLetterSelector s;
    bool has_ids = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "ids") {
            if (!v.is_array() || v.empty() || v.size() > kMaxDeadIds) {
                throw InvalidArgument("ids must be a list of 1 to " + std::to_string(kMaxDeadIds) +
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

QueuePatch parse_queue_patch(const json& body) {
    require_object(body, "a queue change");
    QueuePatch p;
    for (const auto& [key, v] : body.items()) {
        if (key == "max_attempts") {
            p.max_attempts = static_cast<int>(count_field(v, key, 1, 1'000'000));
        } else if (key == "backoff") {
            backoff_fields(v, p);
        } else if (key == "dead_max_count") {
            p.dead_max_count = count_field(v, key, 0, std::numeric_limits<std::uint32_t>::max());
        } else if (key == "dead_max_age") {
            p.dead_max_age = duration_field(v, key);
        } else if (key == "paused") {
            if (!v.is_boolean()) throw InvalidArgument("paused must be true or false");
            p.paused = v.get<bool>();
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

json delete_result_json(const DeleteResult& r) {
    return {{"status", r.status == DeleteStatus::kDeleted ? "deleted" : "in_flight"},
            {"pending", r.pending},
            {"in_flight", r.in_flight},
            {"dead", r.dead}};
}

json history_json(const std::string& queue, std::span<const HistoryPoint> points, bool recording) {
    json list = json::array();
    for (const auto& p : points) {
        json item = totals_json(p.totals);
        item["at_ms"] = unix_ms(p.at);
        list.push_back(std::move(item));
    }
    return {{"queue", queue}, {"recording", recording}, {"points", std::move(list)}};
}

}  // namespace delayq::server
