#include "delayq/schedules.hpp"

#include <string>

#include "delayq/error.hpp"
#include "queue_core.hpp"
#include "schedule/recurrence.hpp"
#include "schedule/registry.hpp"

namespace delayq {
namespace {

namespace codec = detail::schedule_codec;

// Tries of a change that another client's change of the same schedule keeps overtaking: each
// lost try means someone else's write landed, so a few suffice.
constexpr int kPutTries = 5;

codec::Stored* only(codec::GetAnswer& read) {
    return read.schedules.empty() ? nullptr : &read.schedules.front();
}

PutStatus status_of(const std::string& status) {
    if (status == "created") return PutStatus::kCreated;
    if (status == "unchanged" || status == "resumed") return PutStatus::kUnchanged;
    if (status == "exists") return PutStatus::kExists;
    return PutStatus::kUpdated;
}

// Reads the schedule and the Redis clock, computes the first occurrences after that instant
// (C++'s cron and tzdata, never Lua's), and writes them if the schedule is still as read.
// `spec` is null for a resume, which keeps the stored spec. nullopt: a resume found none.
std::optional<PutResult> put(detail::QueueCore& core, codec::PutMode mode, std::string_view name,
                             const ScheduleSpec* spec) {
    validate_schedule_name(name);
    if (spec) validate_schedule(*spec, core.options().max_payload_bytes);
    const std::string new_hash = spec ? codec::spec_hash(*spec) : std::string();
    auto conn = core.acquire();
    for (int tries = 0; tries < kPutTries; ++tries) {
        codec::GetAnswer read = core.schedule_get(*conn, codec::encode_get_one(name));
        const codec::Stored* stored = only(read);
        if (mode == codec::PutMode::kAdd && stored) {
            return PutResult{PutStatus::kExists, stored->info.next};
        }
        if (mode == codec::PutMode::kResume && !stored) return std::nullopt;
        const ScheduleSpec& use = spec ? *spec : stored->info.spec;
        const std::string& hash = spec ? new_hash : stored->hash;
        // Registered before the write too, so that a user who may not write the registry is
        // refused before anything changes; an unchanged upsert registers again, which heals a
        // registry entry lost with Redis's data.
        if (tries == 0)
            detail::index_queue(core.client(), detail::QueueIndex::kSchedules, core.name(),
                                read.now);
        if (mode == codec::PutMode::kUpsert && stored && stored->hash == hash) {
            return PutResult{PutStatus::kUnchanged, stored->info.next};
        }
        const TimePoint anchor = stored ? stored->info.anchor : read.now;
        const auto recurrence = detail::Recurrence::make(use, anchor);
        const auto first = recurrence.after(read.now);
        const auto then = first ? recurrence.after(*first) : std::nullopt;
        const codec::PutAnswer answer = core.schedule_put(
            *conn, {mode, name, stored ? std::string_view(stored->hash) : std::string_view(), use,
                    hash, anchor, first, then});
        if (answer.status == "conflict") continue;
        if (answer.status == "not_found") return std::nullopt;
        if (answer.status != "exists") {
            detail::index_queue(core.client(), detail::QueueIndex::kSchedules, core.name(),
                                read.now);
        }
        return PutResult{status_of(answer.status), answer.next};
    }
    throw ServerError("schedule " + std::string(name) + " of queue " + core.name() +
                      ": changed by other clients " + std::to_string(kPutTries) +
                      " times during this change; try again");
}

}  // namespace

Schedules::Schedules(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Schedules::queue() const { return core_->name(); }

PutResult Schedules::add(std::string_view name, const ScheduleSpec& spec) {
    return *put(*core_, codec::PutMode::kAdd, name, &spec);
}

PutResult Schedules::upsert(std::string_view name, const ScheduleSpec& spec) {
    return *put(*core_, codec::PutMode::kUpsert, name, &spec);
}

std::optional<ScheduleInfo> Schedules::get(std::string_view name) {
    validate_schedule_name(name);
    auto conn = core_->acquire();
    codec::GetAnswer read = core_->schedule_get(*conn, codec::encode_get_one(name));
    codec::Stored* stored = only(read);
    if (!stored) return std::nullopt;
    return std::move(stored->info);
}

SchedulePage Schedules::list(const PageRequest& page) {
    const detail::ScriptArgs args = codec::encode_get_page(page.cursor, page.limit);
    auto conn = core_->acquire();
    codec::GetAnswer read = core_->schedule_get(*conn, args);
    SchedulePage out;
    for (codec::Stored& s : read.schedules) out.schedules.push_back(std::move(s.info));
    if (read.cursor != "0") out.next_cursor = std::move(read.cursor);
    return out;
}

bool Schedules::pause(std::string_view name) {
    validate_schedule_name(name);
    auto conn = core_->acquire();
    return core_->schedule_stop(*conn, false, name).found;
}

bool Schedules::resume(std::string_view name) {
    return put(*core_, codec::PutMode::kResume, name, nullptr).has_value();
}

bool Schedules::remove(std::string_view name) {
    validate_schedule_name(name);
    codec::StopAnswer answer;
    {
        auto conn = core_->acquire();
        answer = core_->schedule_stop(*conn, true, name);
    }
    if (answer.found && answer.left == 0) detail::unregister_schedules(*core_);
    return answer.found;
}

std::optional<TriggerResult> Schedules::trigger(std::string_view name) {
    validate_schedule_name(name);
    auto conn = core_->acquire();
    return core_->schedule_trigger(*conn, name);
}

std::optional<std::vector<TimePoint>> Schedules::next(std::string_view name, std::size_t count,
                                                      std::optional<TimePoint> from) {
    validate_schedule_name(name);
    if (count < 1 || count > kMaxBatch) {
        throw InvalidArgument("count must be 1 to " + std::to_string(kMaxBatch));
    }
    auto conn = core_->acquire();
    codec::GetAnswer read = core_->schedule_get(*conn, codec::encode_get_one(name));
    const codec::Stored* stored = only(read);
    if (!stored) return std::nullopt;
    return next_occurrences(stored->info.spec, from.value_or(read.now), count, stored->info.anchor);
}

}  // namespace delayq
