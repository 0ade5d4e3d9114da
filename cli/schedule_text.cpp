#include "schedule_text.hpp"

#include <date/tz.h>

#include <cstdio>
#include <delayq/time.hpp>
#include <stdexcept>

#include "table.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

void line(const char* name, const std::string& value) {
    std::printf("  %-13s %s\n", name, value.c_str());
}

std::string at_text(TimePoint t, TimePoint now) {
    return format_time(t) + " (" + relative_time(t, now) + ")";
}

}  // namespace

std::string spec_phrase(const ScheduleSpec& spec) {
    if (spec.cron.empty()) return "every " + format_duration(spec.every);
    return "cron \"" + spec.cron + "\" " + spec.tz;
}

std::string state_word(const ScheduleInfo& info) {
    if (info.paused) return "paused";
    return info.next ? "active" : "ended";
}

std::string zone_time(TimePoint t, const std::string& zone) {
    const date::time_zone* tz = nullptr;
    try {
        tz = date::locate_zone(zone);
    } catch (const std::runtime_error&) {
        // The library found the zone in the system's tzdata, this reader not: the UTC time
        // alone is still right.
        return "";
    }
    const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
    if (seconds == t) return date::format("%F %T %Z (%Ez)", date::make_zoned(tz, seconds));
    return date::format("%F %T %Z (%Ez)", date::make_zoned(tz, t));
}

std::string occurrence_text(TimePoint t, TimePoint now, const std::string& zone) {
    std::string text = at_text(t, now);
    if (zone == "UTC") return text;
    const std::string local = zone_time(t, zone);
    return local.empty() ? text : text + ", " + local;
}

void print_schedule(const std::string& queue, const ScheduleInfo& info, TimePoint now) {
    const ScheduleSpec& spec = info.spec;
    std::printf("%s in queue %s\n", info.name.c_str(), queue.c_str());
    line("schedule", spec_phrase(spec));
    line("state", state_word(info));
    line("next", info.next ? occurrence_text(*info.next, now, spec.tz) : "-");
    if (info.last_fired) {
        line("last fired", occurrence_text(*info.last_fired, now, spec.tz));
        std::string outcome = info.last_id + ", " + std::string(to_string(info.last_outcome));
        if (!info.last_dead_reason.empty()) outcome += " (" + info.last_dead_reason + ")";
        line("last message", outcome);
    } else {
        line("last fired", "never");
    }
    line("runs", std::to_string(info.runs) + " (missed " + std::to_string(info.missed) +
                     ", skipped " + std::to_string(info.skipped) + ")");
    line("payload", payload_text(spec.payload));
    line("max attempts",
         spec.max_attempts == 0 ? "the queue's" : std::to_string(spec.max_attempts));
    line("expire after",
         spec.expire_after.count() == 0 ? "never" : format_duration(spec.expire_after));
    if (spec.start) line("start", format_time(*spec.start));
    if (spec.end) line("end", format_time(*spec.end));
    if (spec.max_runs > 0) line("max runs", std::to_string(spec.max_runs));
    line("overlap", std::string(to_string(spec.overlap)));
    line("catch-up", std::string(to_string(spec.catch_up)));
    if (spec.cron.empty()) line("anchor", format_time(info.anchor));
    line("created", at_text(info.created, now));
    line("updated", at_text(info.updated, now));
}

void print_occurrences(std::span<const TimePoint> occurrences, const std::string& zone) {
    for (const TimePoint t : occurrences) {
        const std::string local = zone == "UTC" ? "" : zone_time(t, zone);
        std::printf("%s%s%s\n", format_time(t).c_str(), local.empty() ? "" : "  ", local.c_str());
    }
}

}  // namespace delayq::cli
