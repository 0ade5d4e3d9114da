#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/schedules.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The calls and replies of the schedule scripts: schedule_put.lua, schedule_get.lua,
// schedule_poll.lua, schedule_claim.lua, schedule_stop.lua, schedule_trigger.lua. Contracts in
// their headers; the stored spec's fields in lib/schedule.lua.
namespace delayq::detail::schedule_codec {

// The digest of everything a spec says, which an upsert compares to tell "unchanged": hex of
// SHA-256 over the fields, each length-prefixed.
std::string spec_hash(const ScheduleSpec& spec);

// The message ids of a schedule's occurrences are this followed by the instant's unix ms
// (schedule_message_id): the scripts append the instant.
std::string id_prefix(std::string_view name);

enum class PutMode { kAdd, kUpsert, kResume };
struct PutRequest {
    PutMode mode = PutMode::kUpsert;
    std::string_view name;
    std::string_view expected;  // the hash read, empty when no schedule was read
    const ScheduleSpec& spec;
    std::string_view hash;
    TimePoint anchor;
    std::optional<TimePoint> first;
    std::optional<TimePoint> then;
};
ScriptArgs encode_put(const PutRequest& request);
struct PutAnswer {
    std::string status;  // created, updated, unchanged, exists, resumed, not_found, conflict
    std::optional<TimePoint> next;
};
PutAnswer decode_put(const Reply& reply);

// A schedule as stored: what get and list show, the hash upsert compares, and the next
// occurrence not yet sent (the claim's `expected`).
struct Stored {
    ScheduleInfo info;
    std::string hash;
    std::optional<TimePoint> pending_next;
};
ScriptArgs encode_get_one(std::string_view name);
ScriptArgs encode_get_page(std::string_view cursor, std::size_t count);
struct GetAnswer {
    TimePoint now;
    std::string cursor;  // "0" after the last page
    std::vector<Stored> schedules;
};
GetAnswer decode_get(const Reply& reply);

// A schedule whose claim is due, without its payload.
struct DueSchedule {
    std::string name;
    ScheduleSpec spec;
    std::string hash;
    TimePoint claim_at;  // when its claim fell due
    TimePoint anchor;
    std::optional<TimePoint> next;
};
ScriptArgs encode_poll(std::size_t limit);
struct PollAnswer {
    TimePoint now;
    std::optional<TimePoint> next_claim;
    std::vector<DueSchedule> due;
};
PollAnswer decode_poll(const Reply& reply);

struct ClaimRequest {
    std::string_view name;
    std::string_view hash;
    TimePoint expected;
    std::optional<TimePoint> then;
    std::size_t missed = 0;
    std::span<const TimePoint> instants;
};
ScriptArgs encode_claim(const ClaimRequest& request);
struct ClaimAnswer {
    std::string status;  // claimed, conflict, paused, gone
    std::size_t sent = 0;
    std::size_t skipped = 0;
    std::optional<TimePoint> claim_at;
};
ClaimAnswer decode_claim(const Reply& reply);

ScriptArgs encode_stop(bool remove, std::string_view name);
struct StopAnswer {
    bool found = false;
    std::size_t left = 0;  // schedules left in the queue
};
StopAnswer decode_stop(const Reply& reply);

ScriptArgs encode_trigger(std::string_view name);
// nullopt when there is no such schedule; a duplicate (an occurrence of that very millisecond)
// is reported as the id it would have had.
std::optional<TriggerResult> decode_trigger(const Reply& reply, std::string_view name);

}  // namespace delayq::detail::schedule_codec
