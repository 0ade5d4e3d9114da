#include "json/schedule.hpp"

#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>
#include <string>

#include "json/payload.hpp"

namespace delayq::json {
namespace {

std::string_view status_name(PutStatus status) {
    switch (status) {
        case PutStatus::kCreated:
            return "created";
        case PutStatus::kUpdated:
            return "updated";
        case PutStatus::kUnchanged:
            return "unchanged";
        case PutStatus::kExists:
            return "exists";
    }
    return "created";
}

}  // namespace

Json schedule_spec_json(const ScheduleSpec& spec) {
    Json out = Json::object();
    if (spec.cron.empty()) {
        out["every_ms"] = spec.every.count();
    } else {
        out["cron"] = spec.cron;
    }
    out["tz"] = spec.tz;
    put_payload(out, spec.payload);
    out["max_attempts"] = spec.max_attempts;
    out["expire_after_ms"] = spec.expire_after.count();
    out["start_ms"] = optional_ms(spec.start);
    out["end_ms"] = optional_ms(spec.end);
    out["max_runs"] = spec.max_runs;
    out["overlap"] = std::string(to_string(spec.overlap));
    out["catch_up"] = std::string(to_string(spec.catch_up));
    return out;
}

Json schedule_json(const std::string& queue, const ScheduleInfo& info) {
    return Json{{"queue", queue},
                {"name", info.name},
                {"spec", schedule_spec_json(info.spec)},
                {"paused", info.paused},
                {"anchor_ms", unix_ms(info.anchor)},
                {"created_ms", unix_ms(info.created)},
                {"updated_ms", unix_ms(info.updated)},
                {"next_ms", optional_ms(info.next)},
                {"last_fired_ms", optional_ms(info.last_fired)},
                {"last_id", info.last_id},
                {"last_outcome", std::string(to_string(info.last_outcome))},
                {"last_dead_reason", info.last_dead_reason},
                {"runs", info.runs},
                {"missed", info.missed},
                {"skipped", info.skipped}};
}

Json schedule_page_json(const std::string& queue, const SchedulePage& page) {
    Json list = Json::array();
    for (const ScheduleInfo& info : page.schedules) list.push_back(schedule_json(queue, info));
    return Json{{"schedules", std::move(list)},
                {"next_cursor", page.next_cursor.empty() ? Json(nullptr) : Json(page.next_cursor)}};
}

Json put_result_json(const PutResult& result) {
    return Json{{"status", std::string(status_name(result.status))},
                {"next_ms", optional_ms(result.next)}};
}

Json occurrences_json(std::span<const TimePoint> occurrences) {
    Json list = Json::array();
    for (const TimePoint t : occurrences) {
        list.push_back(Json{{"ms", unix_ms(t)}, {"time", format_time(t)}});
    }
    return Json{{"occurrences", std::move(list)}};
}

ScheduleSpec parse_schedule_spec(const Json& body) {
    require_object(body, "a schedule");
    ScheduleSpec spec;
    bool has_payload = false;
    for (const auto& [key, v] : body.items()) {
        if (key == "cron") {
            spec.cron = string_field(v, key);
        } else if (key == "every") {
            spec.every = duration_field(v, key);
        } else if (key == "tz") {
            spec.tz = string_field(v, key);
        } else if (key == "payload" || key == "payload_base64") {
            if (has_payload) throw InvalidArgument("give payload or payload_base64, not both");
            has_payload = true;
            spec.payload = payload_field(v, key);
        } else if (key == "max_attempts") {
            spec.max_attempts = static_cast<int>(count_field(v, key, 0, kMaxAttempts));
        } else if (key == "expire_after") {
            spec.expire_after = duration_field(v, key);
        } else if (key == "start") {
            spec.start = time_field(v, key);
        } else if (key == "end") {
            spec.end = time_field(v, key);
        } else if (key == "max_runs") {
            spec.max_runs = count_field(v, key, 0, kMaxScheduleRuns);
        } else if (key == "overlap") {
            auto overlap = parse_overlap(string_field(v, key));
            if (!overlap) throw InvalidArgument("overlap must be \"allow\" or \"skip\"");
            spec.overlap = *overlap;
        } else if (key == "catch_up") {
            auto catch_up = parse_catch_up(string_field(v, key));
            if (!catch_up) throw InvalidArgument("catch_up must be \"none\", \"one\" or \"all\"");
            spec.catch_up = *catch_up;
        } else {
            unknown_field(key);
        }
    }
    if (spec.cron.empty() == (spec.every == Duration(0)))
        throw InvalidArgument("give cron or every, one of them");
    return spec;
}

}  // namespace delayq::json
